'use strict';
// A small server's day in a few seconds, with three ways to block its loop that real apps have:
// a report rendered in JavaScript, a password hashed synchronously (native code), a large JSON
// body parsed at once. Run it under lagwatch/register with blocks on, and read which code blocked
// the loop (docs/diagnosis.md, "Which code blocks my loop?"):
//
//   LAGWATCH_BLOCK_MS=100 node -r lagwatch/register examples/blocking.js
const crypto = require('crypto');

const body = JSON.stringify(Array.from({ length: 400000 }, (_, i) => ({ id: i, name: `item ${i}` })));

function renderReport(rows) {
  let html = '';
  for (let i = 0; i < rows; i++) html += `<tr><td>${i}</td><td>${(i * 7919) % 10007}</td></tr>`;
  return html.length;
}

function hashPassword(password) {
  return crypto.pbkdf2Sync(password, 'salt', 1000000, 32, 'sha256').length;
}

function parseUpload() {
  return JSON.parse(body).length;
}

const work = [() => renderReport(3e5), () => hashPassword('secret'), parseUpload];
let n = 0;
const timer = setInterval(() => {
  work[n % work.length]();
  if (++n === 9) clearInterval(timer);
}, 200);
