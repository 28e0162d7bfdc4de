#include "base/file_map.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace attnviz {

Result<std::shared_ptr<const void>> file_map(const std::string& path, size_t& size, FileMapAccess& access) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error("cannot open '" + path + "': " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error("'" + path + "' is not a regular file");
  }
  size = static_cast<size_t>(st.st_size);
  if (size == 0) {  // mmap refuses empty files; the parser reports them
    ::close(fd);
    return std::shared_ptr<const void>();
  }
  void* p = MAP_FAILED;
  if (access == FileMapAccess::copy_on_write) {
    p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED && errno == ENOMEM) access = FileMapAccess::read_only;  // more than the kernel will commit
  }
  if (access == FileMapAccess::read_only) p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int error = errno;
  ::close(fd);  // the mapping keeps the file open
  if (p == MAP_FAILED) return make_error("cannot map '" + path + "': " + std::strerror(error));
  // Pages the file's cache lacks are read back in 2 MB blocks where the file system's cache holds
  // such blocks (ext4 on Linux 6.18 here; elsewhere the hint mostly reads further ahead). A block is
  // mapped (and at exit unmapped) in one step, where the 4 KB pages a plain fault reads cost one step
  // each: at T=16 a 340 MB model cached in small pages spent 0.04 s of a 0.07 s CLI run mapping them,
  // one cached in 2 MB blocks 0.02 s (bench/README.md, "The page cache's block size"). Without it, a
  // file the kernel evicted in part is read back in small pages and stays so. A fault then reads up
  // to a few MB around the page it needs; tensors far from every one used are still never read.
  ::madvise(p, size, MADV_HUGEPAGE);
  // Values copied out are read once, in order; weights read in place are read again and again.
  if (access == FileMapAccess::read_only) ::madvise(p, size, MADV_SEQUENTIAL);
  return std::shared_ptr<const void>(p, [size](const void* q) { ::munmap(const_cast<void*>(q), size); });
}

}  // namespace attnviz
