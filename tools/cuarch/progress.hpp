// The progress line (issue 35): a slow nvcc, a driver or a large directory must not leave a person
// at a silent terminal. The library names each step before it starts (cuarch::progress_hook); once
// cuarch has been busy for over a second, one line on stderr says what it is doing now ("cuarch:
// probing /usr/bin/nvcc (--version)..."), redrawn as the steps change, and erased before anything
// else is printed. Only when stderr is a terminal: in a pipe or a log nothing is added (no thread,
// no hook).
#pragma once

#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include <cuarch/core/detail/utf8.hpp>
#include <cuarch/detect/result.hpp>

namespace cuarch_cli {

class progress_line {
 public:
  static constexpr std::chrono::milliseconds quiet_for{1000};  // how long cuarch may be busy without a word
  static constexpr std::chrono::milliseconds redraw_every{200};

  progress_line() {
    if (::isatty(2) != 1) return;
    // The signals the command handles (cli.hpp: detecting) go to the main thread, whose wait they
    // must wake: this thread blocks them all, as it is created with them blocked.
    sigset_t all, old;
    sigfillset(&all);
    ::pthread_sigmask(SIG_BLOCK, &all, &old);
    try {
      thread_ = std::thread([this] {
        try {
          run();
        } catch (...) {  // no memory for a line: the line stops, the command goes on
        }
      });
    } catch (...) {  // no thread to be had: no progress line, the command runs as in a pipe
    }
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  }
  ~progress_line() { stop(); }
  progress_line(const progress_line&) = delete;
  progress_line& operator=(const progress_line&) = delete;

  /// What the library calls; unset when stderr is no terminal.
  cuarch::progress_hook hook() {
    return thread_.joinable() ? cuarch::progress_hook{&progress_line::on_step, this} : cuarch::progress_hook{};
  }

  /// Ends the line (erased, if it was drawn); what is printed next starts a clean line.
  void stop() {
    if (!thread_.joinable()) return;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
    if (drawn_) write_out("\r\033[K");
  }

 private:
  static void on_step(void* self, std::string_view what) noexcept {
    auto& me = *static_cast<progress_line*>(self);
    try {
      const std::lock_guard<std::mutex> lock(me.mutex_);
      me.step_.assign(what);
    } catch (...) {  // no memory for the words: the line keeps the last step, the library goes on
    }
  }

  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (wake_.wait_for(lock, quiet_for, [this] { return stopping_; })) return;
    std::string shown;  // the step on the line now: the same words are not drawn again
    while (!stopping_) {
      if (step_ != shown) {
        shown = step_;
        std::string line = "\r\033[Kcuarch: " + cuarch::detail::printable(shown, false) + "...";
        lock.unlock();
        draw(std::move(line));
        lock.lock();
      }
      wake_.wait_for(lock, redraw_every, [this] { return stopping_; });
    }
  }

  // One terminal line: cut to the terminal's width, so that the carriage return erases all of it.
  void draw(std::string line) {
    struct winsize ws {};
    constexpr std::size_t prefix = 4;  // "\r\033[K" takes no column
    if (::ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 && line.size() - prefix >= ws.ws_col)
      line.resize(prefix + ws.ws_col - 1);
    write_out(line);
    drawn_ = true;
  }

  static void write_out(const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(2, text.data() + done, text.size() - done);
      if (n <= 0) return;  // a terminal gone: nothing to say it on
      done += static_cast<std::size_t>(n);
    }
  }

  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::string step_;    // the step announced last
  bool drawn_ = false;  // written by the thread; read by stop() after join
};

}  // namespace cuarch_cli
