// A head's attention weights (Tq, Tk), wherever they are: kept by the trace, or, in a trace whose
// maps are formed on demand (MapsKept::none: a long input), formed now from the head's Q and K and
// the trace's mask — the forward pass's own arithmetic, so the same bits it computed. Every reader of
// a head's map (views, statistics, detectors, exports) goes through here; none holds every map at once.
#pragma once
#include <memory>

#include "model/trace.h"

namespace attnviz {

class HeadMap {
 public:
  static HeadMap of_kept(const Mat& kept) {
    HeadMap m;
    m.kept_ = &kept;
    return m;
  }
  static HeadMap of_formed(Mat formed) {
    HeadMap m;
    m.formed_ = std::move(formed);
    return m;
  }
  const Mat& operator*() const { return kept_ ? *kept_ : formed_; }
  const Mat* operator->() const { return &**this; }
  // Formed now (and owned here), not the trace's: it lives as long as this object.
  bool is_formed() const { return kept_ == nullptr; }

 private:
  const Mat* kept_ = nullptr;  // the trace's own (it must outlive this object)
  Mat formed_;
};

// Head h of `layer`: its weights. O(Tq·Tk·HS) when formed.
HeadMap head_map(const Trace& trace, int layer, int h);
// The same as a shared pointer, for figures that hold several maps (HeatmapGridSpec::held): a kept
// map is pointed to, not owned (the trace must outlive the pointer); a formed one is owned.
std::shared_ptr<const Mat> head_map_shared(const Trace& trace, int layer, int h);
// Rows [first, first + n) of it (n, Tk), forming only those rows: the same bits as the map's rows.
Mat head_map_rows(const Trace& trace, int layer, int h, int first, int n);
// One cell (query q, key k): a tooltip's number, O(Tk·HS) when formed.
float head_map_at(const Trace& trace, int layer, int h, int q, int k);
// Whether the trace's dot-product heads form their maps when asked (MapsKept::none).
inline bool trace_forms_maps(const Trace& trace) { return trace.maps_kept == MapsKept::none; }

}  // namespace attnviz
