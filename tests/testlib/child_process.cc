// Child processes and threads with a chosen stack, for tests of crashes and resource bounds.
#include "testlib/child_process.h"

#include <poll.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace ckpt::test {
namespace {

void write_all(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w <= 0) return;
    p += w;
    n -= static_cast<size_t>(w);
  }
}

void send(int fd, const std::string& s) {
  uint64_t n = s.size();
  write_all(fd, &n, sizeof n);
  write_all(fd, s.data(), s.size());
}

// One string sent by send() from `all`, starting at *at.
std::string take(const std::string& all, size_t* at) {
  uint64_t n = 0;
  if (*at + sizeof n > all.size()) return {};
  std::memcpy(&n, all.data() + *at, sizeof n);
  *at += sizeof n;
  std::string s = all.substr(*at, n);
  *at += s.size();
  return s;
}

// In the child: cap the data segment (heap and anonymous mappings). AddressSanitizer's shadow
// memory exceeds any useful cap; its own allocator limit catches the same bugs there.
void limit_data(uint64_t bytes) {
#if !defined(CKPT_SANITIZED)
  if (bytes > 0) {
    struct rlimit limit = {bytes, bytes};
    ::setrlimit(RLIMIT_DATA, &limit);
  }
#else
  (void)bytes;
#endif
}

void wait_for(pid_t pid, ChildOutcome& o) {
  int status = 0;
  struct rusage usage = {};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  o.exited = WIFEXITED(status);
  o.exit_code = o.exited ? WEXITSTATUS(status) : -1;
  o.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  o.max_rss_kib = usage.ru_maxrss;
}

}  // namespace

ChildOutcome run_in_child(const std::function<int(std::string& out, std::string& err)>& fn, uint64_t data_limit) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::close(fds[0]);
    limit_data(data_limit);
    std::string out, err;
    int code = fn(out, err);
    send(fds[1], out);
    send(fds[1], err);
    ::close(fds[1]);
    ::_exit(code);
  }
  ::close(fds[1]);
  std::string all;
  char buf[65536];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    all.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  ChildOutcome o;
  wait_for(pid, o);
  size_t at = 0;
  o.out = take(all, &at);
  o.err = take(all, &at);
  return o;
}

ChildOutcome run_ckpt(const std::vector<std::string>& args, uint64_t data_limit) {
  int out_fds[2], err_fds[2];
  if (::pipe(out_fds) != 0 || ::pipe(err_fds) != 0) throw std::runtime_error("pipe failed");
  std::vector<std::string> argv_strings{CKPT_BINARY};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    limit_data(data_limit);
    ::dup2(out_fds[1], 1);
    ::dup2(err_fds[1], 2);
    for (int fd : {out_fds[0], out_fds[1], err_fds[0], err_fds[1]}) ::close(fd);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(out_fds[1]);
  ::close(err_fds[1]);
  ChildOutcome o;
  struct pollfd fds[2] = {{out_fds[0], POLLIN, 0}, {err_fds[0], POLLIN, 0}};
  std::string* sinks[2] = {&o.out, &o.err};
  for (int open = 2; open > 0;) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[65536];
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  wait_for(pid, o);
  return o;
}

void run_on_thread(size_t stack_bytes, const std::function<void()>& fn) {
#if defined(CKPT_SANITIZED)
  // AddressSanitizer's redzones around every local make frames several times larger: a small
  // stack that holds the bounded recursion of a normal build overflows under it. Eight times
  // the size still overflows on unbounded recursion, which is what these stacks are there for.
  stack_bytes *= 8;
#endif
  pthread_attr_t attr;
  ::pthread_attr_init(&attr);
  if (stack_bytes > 0) ::pthread_attr_setstacksize(&attr, stack_bytes);
  pthread_t thread;
  auto body = [](void* f) -> void* {
    (*static_cast<const std::function<void()>*>(f))();
    return nullptr;
  };
  int rc = ::pthread_create(&thread, &attr, body, const_cast<std::function<void()>*>(&fn));
  ::pthread_attr_destroy(&attr);
  if (rc != 0) throw std::runtime_error("pthread_create failed");
  ::pthread_join(thread, nullptr);
}

}  // namespace ckpt::test
