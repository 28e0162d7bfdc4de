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

TEST_CASE("memory: huge pages are asked for the whole 2 MB pages inside a block only, and change nothing in it") {
  // 8 MB from mmap holds at least three whole 2 MB pages wherever it starts; 1 MB holds none.
  const size_t bytes = size_t{8} << 20;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(p != MAP_FAILED);
  auto* floats = static_cast<float*>(p);
  const size_t n = bytes / sizeof(float);
  CHECK_FALSE(memory_prefer_huge_pages(floats + 1, (size_t{1} << 20)));  // no whole huge page inside
  std::string mode;
  if (FILE* f = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r")) {
    char line[128] = {};
    if (std::fgets(line, sizeof line, f)) mode = line;
    std::fclose(f);
  }
  const bool advised = memory_prefer_huge_pages(floats + 1, bytes - 2 * sizeof(float));
  if (mode.find("[madvise]") != std::string::npos || mode.find("[always]") != std::string::npos) {
    CHECK(advised);  // the kernel has transparent huge pages and takes the advice
  } else {
    MESSAGE("transparent huge pages are '" << mode << "' here: only contents checked");
  }
  memory_populate_for_write(p, bytes);
  CHECK(std::all_of(floats, floats + n, [](float v) { return v == 0.0f; }));
  std::iota(floats, floats + n, 0.0f);
  CHECK_FALSE(memory_prefer_huge_pages(floats, 0));
  memory_prefer_huge_pages(floats, bytes);  // advice on filled memory: the values stay
  CHECK(floats[n - 1] == static_cast<float>(n - 1));
  CHECK(floats[12345] == 12345.0f);
  ::munmap(p, bytes);
}
