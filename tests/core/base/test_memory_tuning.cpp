// Populating pages maps them all at once (what model loading and random initialisation rely on for
// speed) and never changes what they hold.
#include <doctest/doctest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include "base/memory_tuning.h"

using namespace attnviz;

namespace {

size_t page_size() { return static_cast<size_t>(::sysconf(_SC_PAGESIZE)); }

// How many of the n pages from p are in memory (mincore).
size_t resident_pages(void* p, size_t n) {
  std::vector<unsigned char> in(n);
  REQUIRE(::mincore(p, n * page_size(), in.data()) == 0);
  size_t count = 0;
  for (unsigned char c : in) count += c & 1;
  return count;
}

}  // namespace

TEST_CASE("memory: populating fresh memory for writing maps all its pages at once; they still read zero") {
  const size_t page = page_size(), n = 64;
  void* p = ::mmap(nullptr, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  auto* bytes = static_cast<unsigned char*>(p);
  CHECK(resident_pages(p, n) == 0);
  // Unaligned ends: the pages they lie on are included, so the first and last pages too.
  if (!memory_populate_for_write(bytes + 100, n * page - 200)) {
    MESSAGE("this kernel cannot populate pages (Linux 5.14 and later can; Debian 12 has 6.1): only contents checked");
  } else {
    CHECK(resident_pages(p, n) == n);
  }
  size_t nonzero = 0;
  for (size_t i = 0; i < n * page; ++i) nonzero += bytes[i] != 0;
  CHECK(nonzero == 0);
  ::munmap(p, n * page);
}

TEST_CASE("memory: populating memory that already holds values, or a mapped file, leaves them as they were") {
  std::vector<float> values(300000);
  std::iota(values.begin(), values.end(), 0.5f);
  const std::vector<float> before = values;
  const bool populates = memory_populate_for_write(values.data() + 7, (values.size() - 7) * sizeof(float));
  CHECK(values == before);

  const std::string path =
      (std::filesystem::temp_directory_path() / ("attnviz_test_populate_" + std::to_string(::getpid()))).string();
  FILE* f = std::fopen(path.c_str(), "wb");
  REQUIRE(f);
  REQUIRE(std::fwrite(before.data(), sizeof(float), before.size(), f) == before.size());
  std::fclose(f);
  FILE* r = std::fopen(path.c_str(), "rb");
  REQUIRE(r);
  const size_t bytes = before.size() * sizeof(float);
  void* mapped = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fileno(r), 0);
  std::fclose(r);
  std::remove(path.c_str());
  REQUIRE(mapped != MAP_FAILED);
  CHECK(memory_populate_for_read(static_cast<const char*>(mapped) + 3, bytes - 3) == populates);
  CHECK(std::equal(before.begin(), before.end(), static_cast<const float*>(mapped)));
  ::munmap(mapped, bytes);
}
