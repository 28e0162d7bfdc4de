// GUI test helper: holds the heatmaps one view drew in a layout report (--layout-report, or the
// script's layout_report) to a projector's figures. Usage:
//   check_layout REPORT VIEW COUNT MIN_CELL
// Passes when the report has exactly COUNT heatmaps drawn by VIEW ("heads", "compare"), each with
// cells of at least MIN_CELL pixels and its values printed in them, and when no token label was
// skipped: every map's labels on an axis are all of that axis's tokens or none (a map beside
// another shares its labels), and some map labels every row and some map every column.
#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: check_layout REPORT VIEW COUNT MIN_CELL\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  const nlohmann::json report = nlohmann::json::parse(in, nullptr, false);
  if (report.is_discarded() || !report.contains("heads")) {
    std::fprintf(stderr, "check_layout: %s is not a layout report\n", argv[1]);
    return 1;
  }
  const std::string view = argv[2];
  const int count = std::stoi(argv[3]);
  const double min_cell = std::stod(argv[4]);
  int seen = 0, failures = 0;
  bool all_rows = false, all_cols = false;
  for (const auto& map : report["heads"]) {
    if (map.value("view", "") != view) continue;
    ++seen;
    const int rows = map["rows"], cols = map["cols"], layer = map["layer"], head = map["head"];
    const double cell = map["cell"];
    const size_t rows_labelled = map["rows_labelled"].size(), cols_labelled = map["cols_labelled"].size();
    std::printf("%s L%d H%d: cell %.1f px, %zu of %d row labels, %zu of %d column labels (%.1f px), numbers %s\n",
                view.c_str(), layer + 1, head + 1, cell, rows_labelled, rows, cols_labelled, cols,
                map["label_px"].get<double>(), map["numbers"].get<bool>() ? "yes" : "no");
    const auto fail = [&](const char* what) {
      std::fprintf(stderr, "check_layout: %s L%d H%d: %s\n", view.c_str(), layer + 1, head + 1, what);
      ++failures;
    };
    if (cell < min_cell) fail("cells smaller than asked");
    if (!map["numbers"].get<bool>()) fail("no numbers in the cells");
    if (rows_labelled != 0 && rows_labelled != static_cast<size_t>(rows)) fail("some row labels skipped");
    if (cols_labelled != 0 && cols_labelled != static_cast<size_t>(cols)) fail("some column labels skipped");
    all_rows = all_rows || rows_labelled == static_cast<size_t>(rows);
    all_cols = all_cols || cols_labelled == static_cast<size_t>(cols);
  }
  if (seen != count) {
    std::fprintf(stderr, "check_layout: %d heatmaps drawn by %s, expected %d\n", seen, view.c_str(), count);
    return 1;
  }
  if (!all_rows || !all_cols) {
    std::fprintf(stderr, "check_layout: no %s map labels every %s\n", view.c_str(), all_rows ? "column" : "row");
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
