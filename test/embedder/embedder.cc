// An embedder that runs Node the way Electron does, as a test fixture for lagwatch.
//
// Electron does not run Node's event loop itself (electron/electron, shell/common/
// node_bindings.cc and node_bindings_linux.cc): an "embed thread" waits on libuv's backend fd
// with uv_backend_timeout() as its timeout, then posts a task to Chromium's message loop on the
// main thread; that task (NodeBindings::UvRunOnce) runs uv_run(loop, UV_RUN_NOWAIT) once and
// posts the embed thread's semaphore so that it polls again. The loop never waits in its own
// poll, and the main thread also runs Chromium's own tasks (IPC, webContents events, menus) with
// no uv iteration at all. This program reproduces that loop with a plain task queue standing in
// for Chromium's, so that lagwatch's monitors can be tested inside it:
//
//   embedder browser|renderer SCRIPT [args...]
//
// runs SCRIPT (CommonJS, with require) in a Node environment of Debian's libnode, with
// process.type set to 'browser' (the main process) or 'renderer'. Commands on stdin post plain
// "Chromium" tasks to the main thread, run outside any uv iteration:
//   busy MS        a task that busy-waits MS ms (a synchronous IPC handler, a menu)
//   js CODE        a task that runs CODE as JavaScript (an IPC message handler)
//   coalesce MS    from now on the embed thread's wake-ups are held to multiples of MS ms (0:
//                  off), as macOS App Nap coalesces the timers of an app in the background
//   quit           the main loop ends; the environment is torn down; the process exits
// stdin's end is `quit`. The script talks on stdout.
#include <node.h>
#include <uv.h>

#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

// Chromium's message loop on the main thread, reduced to a queue of tasks (base::TaskRunner's
// PostTask and the RunLoop that runs them).
class TaskQueue {
 public:
  void Post(std::function<void()> task) {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_.push_back(std::move(task));
    cv_.notify_one();
  }
  // Runs tasks until Quit(); waits (idle, outside libuv) while there is none.
  void Run() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return quit_ || !tasks_.empty(); });
        if (quit_) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }
  void Quit() {
    std::lock_guard<std::mutex> lock(mu_);
    quit_ = true;
    cv_.notify_one();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool quit_ = false;
};

double NowMs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// Electron's NodeBindings, for one environment: the embed thread and UvRunOnce.
class NodeBindings {
 public:
  NodeBindings(uv_loop_t* loop, TaskQueue* queue) : loop_(loop), queue_(queue) {
    // NodeBindingsLinux's constructor: an epoll set of its own watching libuv's backend fd.
    epoll_ = epoll_create(1);
    struct epoll_event ev = {};
    ev.events = EPOLLIN;
    ev.data.fd = uv_backend_fd(loop_);
    epoll_ctl(epoll_, EPOLL_CTL_ADD, uv_backend_fd(loop_), &ev);
  }

  // NodeBindings::PrepareEmbedThread: a dummy handle keeps the loop alive, and the embed thread
  // starts blocked on its semaphore.
  void PrepareEmbedThread() {
    uv_async_init(loop_, &dummy_, nullptr);
    uv_sem_init(&embed_sem_, 0);
    uv_thread_create(&embed_thread_, EmbedThreadRunner, this);
  }

  // NodeBindings::StartPolling / RunMessageLoop: one uv iteration to register every event.
  void Start(node::Environment* env, v8::Isolate* isolate, v8::Local<v8::Context> context) {
    env_ = env;
    isolate_ = isolate;
    context_.Reset(isolate, context);
    UvRunOnce();
  }

  // NodeBindings::UvRunOnce: on the main thread, in a Chromium task.
  void UvRunOnce() {
    if (closed_) return;
    v8::HandleScope handle_scope(isolate_);
    v8::Local<v8::Context> context = context_.Get(isolate_);
    v8::Context::Scope context_scope(context);
    // Node expects a microtask checkpoint after every call into JavaScript (Electron switches
    // the policy to kExplicit around this uv_run).
    uv_run(loop_, UV_RUN_NOWAIT);
    isolate_->PerformMicrotaskCheckpoint();
    // Tell the embed thread to poll again.
    uv_sem_post(&embed_sem_);
  }

  // App Nap: the embed thread's wake-ups come only at multiples of `ms`.
  void Coalesce(double ms) { coalesce_ms_ = ms; }

  void Close() {
    closed_ = true;
    uv_sem_post(&embed_sem_);
    // NodeBindings::WakeupEmbedThread: the dummy handle's send wakes the poll.
    uv_async_send(&dummy_);
    uv_thread_join(&embed_thread_);
    uv_sem_destroy(&embed_sem_);
    close(epoll_);
    uv_close(reinterpret_cast<uv_handle_t*>(&dummy_), nullptr);
    context_.Reset();
  }

 private:
  // NodeBindingsLinux::PollEvents: wait for libuv's events, at most until its next timer.
  void PollEvents() {
    int timeout = uv_backend_timeout(loop_);
    int r;
    do {
      struct epoll_event ev;
      r = epoll_wait(epoll_, &ev, 1, timeout);
    } while (r == -1 && errno == EINTR);
    double every = coalesce_ms_;
    if (every > 0) {
      // The OS holds the wake-up to the next multiple of `every`.
      double now = NowMs();
      double next = (static_cast<long long>(now / every) + 1) * every;
      usleep(static_cast<useconds_t>((next - now) * 1000));
    }
  }

  // NodeBindings::EmbedThreadRunner.
  static void EmbedThreadRunner(void* arg) {
    auto* self = static_cast<NodeBindings*>(arg);
    for (;;) {
      uv_sem_wait(&self->embed_sem_);
      if (self->closed_) break;
      self->PollEvents();
      if (self->closed_) break;
      // NodeBindings::WakeupMainThread: UvRunOnce as a task of the main thread.
      self->queue_->Post([self] { self->UvRunOnce(); });
    }
  }

  uv_loop_t* loop_;
  TaskQueue* queue_;
  int epoll_;
  uv_async_t dummy_;
  uv_sem_t embed_sem_;
  uv_thread_t embed_thread_;
  std::atomic<bool> closed_{false};
  std::atomic<double> coalesce_ms_{0};
  node::Environment* env_ = nullptr;
  v8::Isolate* isolate_ = nullptr;
  v8::Global<v8::Context> context_;
};

}  // namespace

int main(int argc, char** argv) {
  argv = uv_setup_args(argc, argv);
  if (argc < 3) {
    std::fprintf(stderr, "usage: embedder browser|renderer SCRIPT [args...]\n");
    return 2;
  }
  std::string type = argv[1];
  std::vector<std::string> args = {argv[0]};
  for (int i = 2; i < argc; i++) args.push_back(argv[i]);
  std::unique_ptr<node::InitializationResult> init = node::InitializeOncePerProcess(
      args, {node::ProcessInitializationFlags::kNoInitializeV8,
             node::ProcessInitializationFlags::kNoInitializeNodeV8Platform});
  for (const std::string& error : init->errors()) std::fprintf(stderr, "%s\n", error.c_str());
  if (init->early_return() != 0) return init->exit_code();

  std::unique_ptr<node::MultiIsolatePlatform> platform = node::MultiIsolatePlatform::Create(4);
  v8::V8::InitializePlatform(platform.get());
  v8::V8::Initialize();

  int exit_code = 0;
  {
    std::vector<std::string> errors;
    std::unique_ptr<node::CommonEnvironmentSetup> setup =
        node::CommonEnvironmentSetup::Create(platform.get(), &errors, init->args(), init->exec_args());
    if (!setup) {
      for (const std::string& err : errors) std::fprintf(stderr, "%s\n", err.c_str());
      return 1;
    }
    v8::Isolate* isolate = setup->isolate();
    node::Environment* env = setup->env();
    TaskQueue queue;
    NodeBindings bindings(setup->event_loop(), &queue);
    {
      v8::Locker locker(isolate);
      v8::Isolate::Scope isolate_scope(isolate);
      v8::HandleScope handle_scope(isolate);
      v8::Context::Scope context_scope(setup->context());
      // process.type as Electron sets it, then the script, with a require of its own.
      std::string boot =
          "process.type = '" + type + "';\n"
          "const { createRequire } = require('module');\n"
          "const path = require('path');\n"
          "const script = path.resolve(process.argv[1]);\n"
          "globalThis.require = createRequire(script);\n"
          "globalThis.require(script);\n";
      if (node::LoadEnvironment(env, boot.c_str()).IsEmpty()) return 1;
      bindings.PrepareEmbedThread();
      bindings.Start(env, isolate, setup->context());

      // Commands from the test: plain Chromium tasks, outside any uv iteration.
      std::thread reader([&] {
        std::string line;
        while (std::getline(std::cin, line)) {
          if (line.rfind("busy ", 0) == 0) {
            double ms = std::atof(line.c_str() + 5);
            queue.Post([ms] {
              double start = NowMs();
              while (NowMs() - start < ms) {
              }
            });
          } else if (line.rfind("js ", 0) == 0) {
            std::string code = line.substr(3);
            queue.Post([isolate, &setup, code] {
              v8::HandleScope scope(isolate);
              v8::Local<v8::Context> context = setup->context();
              v8::Context::Scope context_scope(context);
              v8::Local<v8::String> source =
                  v8::String::NewFromUtf8(isolate, code.c_str()).ToLocalChecked();
              v8::Local<v8::Script> script;
              if (v8::Script::Compile(context, source).ToLocal(&script)) (void)script->Run(context);
              isolate->PerformMicrotaskCheckpoint();
            });
          } else if (line.rfind("coalesce ", 0) == 0) {
            bindings.Coalesce(std::atof(line.c_str() + 9));
          } else if (line == "quit") {
            break;
          }
        }
        queue.Post([&queue] { queue.Quit(); });
      });
      queue.Run();
      reader.join();
      bindings.Close();
      // process.on('exit') listeners run, as at the end of Electron's main process.
      exit_code = node::EmitProcessExit(env).FromMaybe(1);
    }
    node::Stop(env);
  }
  v8::V8::Dispose();
  v8::V8::DisposePlatform();
  node::TearDownOncePerProcess();
  return exit_code;
}
