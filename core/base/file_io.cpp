// POSIX implementation of file_io.h. Errors carry strerror text and the path.
#include "base/file_io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace attnviz {

namespace {

std::string describe(const std::string& what, const std::string& path) {
  return what + " '" + path + "': " + std::strerror(errno);
}

// Closes a descriptor when it leaves scope.
struct Fd {
  int fd = -1;
  ~Fd() { if (fd >= 0) ::close(fd); }
};

}  // namespace

bool path_is_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool path_is_folder(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

Result<std::vector<uint8_t>> file_read_bytes(const std::string& path, uint64_t max_bytes) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) return make_error(describe("cannot open", path));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) return make_error(describe("cannot stat", path));
  if (S_ISDIR(st.st_mode)) return make_error("'" + path + "' is a folder, not a file");
  if (static_cast<uint64_t>(st.st_size) > max_bytes)
    return make_error("'" + path + "' is too large (" + std::to_string(st.st_size) + " bytes; the limit is " +
                      std::to_string(max_bytes) + ")");
  std::vector<uint8_t> bytes(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(f.fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_error(describe("cannot read", path));
    if (n == 0) break;  // the file shrank while we read it
    done += static_cast<size_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

std::vector<uint8_t> file_read_prefix(const std::string& path, size_t n) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  std::vector<uint8_t> bytes(n);
  size_t done = 0;
  while (f.fd >= 0 && done < n) {
    const ssize_t got = ::read(f.fd, bytes.data() + done, n - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    done += static_cast<size_t>(got);
  }
  bytes.resize(done);
  return bytes;
}

namespace {

// Writes every byte (retrying short writes and EINTR); false with errno set on failure.
bool write_all(int fd, std::span<const uint8_t> bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) errno = ENOSPC;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// A device, FIFO or socket has no contents to keep safe, and renaming a file over it would replace
// the device itself (as root, saving to /dev/full turned it into a regular file): write in place.
Status write_in_place(const std::string& path, std::span<const uint8_t> bytes) {
  Fd f{::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC)};
  if (f.fd < 0) return make_error(describe("cannot write", path));
  if (!write_all(f.fd, bytes)) return make_error(describe("cannot write", path));
  return Ok{};
}

}  // namespace

Status file_write_atomic(const std::string& path, std::span<const uint8_t> bytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return make_error("cannot write '" + path + "': it is a folder");
    if (!S_ISREG(st.st_mode)) return write_in_place(path, bytes);
  }
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  {
    Fd f{::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
    if (f.fd < 0) return make_error(describe("cannot write", path));
    if (!write_all(f.fd, bytes)) {
      Status err = make_error(describe("cannot write", path));
      ::unlink(tmp.c_str());
      return err;
    }
    if (::fsync(f.fd) != 0) {
      Status err = make_error(describe("cannot flush", path));
      ::unlink(tmp.c_str());
      return err;
    }
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Status err = make_error(describe("cannot replace", path));
    ::unlink(tmp.c_str());
    return err;
  }
  return Ok{};
}

Status file_write_atomic(const std::string& path, std::string_view text) {
  return file_write_atomic(path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

}  // namespace attnviz
