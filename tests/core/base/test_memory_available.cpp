// The memory a trace may take: MemAvailable and a cgroup's limit read from made-up file texts, the
// default limit sized from them, --max-trace-memory's SIZE, and the trace's own count of its bytes
// (checked against a real trace) with the tokens that fit: 487 for a TinyLlama-shaped model (22
// layers x 32 heads) in the old fixed 2 GiB, 1,438 in 9.5 GiB (a 24 GB machine with 20 GiB free).
#include <doctest/doctest.h>

#include "base/memory_available.h"
#include "model/head_map.h"
#include "model/trace.h"
#include "support/check_util.h"
#include "support/model_util.h"

using namespace attnviz;

namespace {

constexpr int64_t kMiB = int64_t{1} << 20, kGiB = int64_t{1} << 30;

// A 24 GB machine's /proc/meminfo with 20 GiB available.
const char* kMeminfo =
    "MemTotal:       24684092 kB\n"
    "MemFree:        16618244 kB\n"
    "MemAvailable:   20971520 kB\n"
    "Buffers:           12564 kB\n";

// TinyLlama-1.1B's shape: 22 layers x 32 heads, C 2048, F 5632 (SwiGLU), 4 key/value heads, rotary.
ModelConfig tinyllama() { return test::llama_config({.d_model = 2048, .n_heads = 32, .n_layers = 22, .d_ff = 5632}, 4); }

// GPT-2 small's: 12 layers x 12 heads, C 768, F 3072, learned positions.
ModelConfig gpt2_small() {
  ModelConfig c = test::sized_config({.d_model = 768, .n_heads = 12, .n_layers = 12, .d_ff = 3072});
  c.norm = NormPlacement::pre;
  c.positions = PositionEncoding::learned;
  return c;
}

// Every matrix a trace holds, in bytes.
int64_t held_bytes(const Trace& t) {
  int64_t floats = t.embed.size() + t.memory.size() + t.mask.size() + t.mask_sliding.size() + t.final.size();
  for (const LayerTrace& l : t.layers) {
    floats += l.x_in.size() + l.attn_in.size() + l.resid1.size() + l.ffn_in.size() + l.ffn_hidden.size() +
              l.ffn_out.size() + l.out.size() + l.attn.concat.size() + l.attn.out.size() + l.attn_normed.size() +
              l.ffn_normed.size();
    for (const HeadTrace& h : l.attn.heads)
      floats += h.q.size() + h.k.size() + h.v.size() + h.q_unrotated.size() + h.k_unrotated.size() +
                h.scores_raw.size() + h.scores_scaled.size() + h.weights_kept.size() + h.out.size();
  }
  return floats * static_cast<int64_t>(sizeof(float));
}

}  // namespace

TEST_CASE("memory available: MemAvailable, and a cgroup's limit when it leaves less") {
  CHECK(meminfo_available(kMeminfo) == 20 * kGiB);
  CHECK_FALSE(meminfo_available("MemTotal: 24684092 kB\nMemFree: 1 kB\n").has_value());  // a kernel before 3.14
  CHECK_FALSE(meminfo_available("MemAvailable: lots kB\n").has_value());
  CHECK_FALSE(meminfo_available("MemAvailable: 1024 MB\n").has_value());
  CHECK_FALSE(meminfo_available("").has_value());
  // cgroup v2: 8 GiB allowed, 1 GiB used; "max" is no limit; v1's "no limit" is a huge number.
  CHECK(cgroup_available("8589934592\n", "1073741824\n") == 7 * kGiB);
  CHECK(cgroup_available("1073741824\n", "2147483648\n") == 0);  // over its limit: nothing left
  CHECK_FALSE(cgroup_available("max\n", "1073741824\n").has_value());
  CHECK_FALSE(cgroup_available("", "").has_value());
  CHECK(memory_available({kMeminfo, "8589934592\n", "1073741824\n"}) == 7 * kGiB);
  CHECK(memory_available({kMeminfo, "max\n", "1073741824\n"}) == 20 * kGiB);
  CHECK(memory_available({kMeminfo, "9223372036854771712\n", "7849799680\n"}) == 20 * kGiB);
  CHECK(memory_available({"", "8589934592\n", "1073741824\n"}) == 7 * kGiB);
  CHECK_FALSE(memory_available({}).has_value());
  // This machine's own files read as something sensible (Linux runs the suite).
  const auto here = memory_available(memory_texts_read());
  REQUIRE(here.has_value());
  CHECK(*here > 0);
}

TEST_CASE("memory available: the default trace limit is half of what is left after 1 GiB, at least 256 MiB") {
  CHECK(trace_memory_limit(20 * kGiB) == 19 * kGiB / 2);  // 9.5 GiB on a 24 GB machine with 20 GiB free
  CHECK(trace_memory_limit(7 * kGiB) == 3 * kGiB);        // a container allowed 8 GiB, 1 GiB used
  CHECK(trace_memory_limit(kGiB) == 256 * kMiB);
  CHECK(trace_memory_limit(0) == 256 * kMiB);
  CHECK(trace_memory_limit(std::nullopt) == kTraceMemoryDefault);
  CHECK(kTraceMemoryDefault == 2 * kGiB);
}

TEST_CASE("memory available: --max-trace-memory's SIZE, and what is wrong with a bad one") {
  CHECK(*memory_size_parse("8G") == 8 * kGiB);
  CHECK(*memory_size_parse("512M") == 512 * kMiB);
  CHECK(*memory_size_parse("1.5G") == 3 * kGiB / 2);
  CHECK(*memory_size_parse("2GiB") == 2 * kGiB);
  CHECK(*memory_size_parse("2gb") == 2 * kGiB);
  CHECK(*memory_size_parse("1T") == 1024 * kGiB);
  CHECK(*memory_size_parse("4096K") == 4 * kMiB);
  CHECK(*memory_size_parse("1048576") == kMiB);
  CHECK(*memory_size_parse("1048576B") == kMiB);
  CHECK(memory_size_parse("8X").error() == "'8X': unknown unit 'X' (K, M, G or T: 8G, 512M)");
  CHECK(memory_size_parse("G").error() == "'G' is not a size: write bytes, or a number with K, M, G or T (8G, 512M)");
  CHECK(test::has(memory_size_parse("-1G").error(), "is not a size"));
  CHECK(test::has(memory_size_parse("").error(), "is not a size"));
  CHECK(memory_size_parse("300K").error() == "'300K' is outside 1M to 1024T");
  CHECK(memory_size_parse("2000T").error() == "'2000T' is outside 1M to 1024T");
  CHECK(memory_size_text(8 * kGiB) == "8.0 GiB");
  CHECK(memory_size_text(19 * kGiB / 2) == "9.5 GiB");
  CHECK(memory_size_text(512 * kMiB) == "512 MiB");
  CHECK(memory_size_text(705 * 1024) == "705 KiB");  // the local-model list's test fixtures
}

TEST_CASE("trace memory: trace_bytes is what a real trace holds, scores and maps kept or not, rotary or not") {
  struct Case {
    ModelConfig config;
    int tokens;
    bool on_demand = false;
  };
  ModelConfig llama = test::llama_config({.d_model = 32, .n_heads = 4, .n_layers = 2, .d_ff = 48}, 2);
  ModelConfig plain = test::sized_config({.d_model = 24, .n_heads = 3, .n_layers = 2, .d_ff = 0});
  // Heads wider than d_model / heads, sublayer norms and a second mask for the sliding layers.
  ModelConfig gemma = test::gemma_config({.d_model = 32, .n_heads = 4, .n_layers = 3, .d_ff = 48}, 2, 16, 5);
  // 40 tokens keep every score; 1,500 x 1,500 x 8 heads x 2 layers does not (kKeepScoresCells).
  // With maps on demand a trace holds no (Tq, Tk) matrix but the mask.
  for (const Case& k : {Case{llama, 40}, Case{llama, 1500}, Case{plain, 40}, Case{plain, 1500}, Case{llama, 40, true},
                        Case{plain, 300, true}, Case{gemma, 40}, Case{gemma, 300, true}}) {
    CAPTURE(k.tokens);
    CAPTURE(k.on_demand);
    CAPTURE(k.config.positions == PositionEncoding::rotary);
    const Model m = model_init_random(k.config, 3);
    TraceInput in;
    in.embeddings = Mat::Random(k.tokens, k.config.d_model);
    in.max_memory = int64_t{1} << 40;
    in.maps_on_demand = k.on_demand;
    auto t = trace_run(m, in);
    REQUIRE_MESSAGE(t.ok(), t.error());
    CHECK(trace_forms_maps(*t) == k.on_demand);
    CHECK(trace_bytes(k.config, k.tokens, k.tokens, k.on_demand) == held_bytes(*t));
  }
}

TEST_CASE("trace memory: the tokens that fit, and a refusal that says so and how to raise the limit") {
  // TinyLlama's shape: 2,820 bytes per (query, key) cell over its 704 heads and the mask while it
  // keeps its weights (up to 617 tokens: kKeepMapsCells), with 3,035,136 bytes per token (the layers'
  // rows and every head's q, k, v, out, unrotated q and k); then 4 (the mask alone: the maps are
  // formed on demand) and 925,696 bytes per token (a lean trace: each layer's input and every head's
  // q, k, v and out, model/lean_layers.h).
  const ModelConfig tl = tinyllama();
  CHECK(trace_maps_kept(tl, 617, 617) == MapsKept::weights);
  CHECK(trace_maps_kept(tl, 618, 618) == MapsKept::none);
  CHECK(trace_bytes(tl, 600, 600) == 2820LL * 600 * 600 + 3035136LL * 600);
  CHECK(trace_bytes(tl, 1000, 1000) == 4LL * 1000 * 1000 + 925696LL * 1000);
  CHECK(trace_tokens_fit(tl, 2 * kGiB) == 2297);  // 487 while every map was kept, 706 while the layers were whole
  CHECK(trace_tokens_fit(tl, kGiB) == 1154);
  CHECK(trace_tokens_fit(tl, 8 * kGiB) == kMaxTokens);
  CHECK(trace_tokens_fit(tl, 19 * kGiB / 2) == kMaxTokens);  // 8,192 tokens: 7.3 GiB
  CHECK(trace_tokens_fit(gpt2_small(), 256 * kMiB) == 257);
  CHECK(trace_tokens_fit(gpt2_small(), 19 * kGiB / 2) == kMaxTokens);
  CHECK(trace_tokens_fit(gpt2_small(), 1024 * kGiB) == kMaxTokens);
  CHECK(trace_tokens_fit(tl, kMiB) == 0);
  for (const int64_t limit : {2 * kGiB, kGiB, 256 * kMiB}) {  // the largest that fits, and one more does not
    const int n = trace_tokens_fit(tl, limit);
    CHECK(trace_bytes(tl, n, n) <= limit);
    CHECK(trace_bytes(tl, n + 1, n + 1) > limit);
  }
  // 600 tokens of TinyLlama in 2 GiB: refused, naming the size, the tokens that fit and the flag.
  const Status refused = trace_size_check(tl, 600, 600, 2 * kGiB);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error() ==
        "the attention weights would take 1.0 GB (600 x 600 in each of 32 heads x 22 layers), the whole trace 2.8 GB, "
        "over its limit of 2.1 GB: 2297 tokens fit in this model. Use a shorter text (or padding), fewer heads or "
        "layers, or, if the machine has the memory, raise the limit with --max-trace-memory SIZE (3G for this input)");
  CHECK(trace_size_check(tl, 600, 600, 3 * kGiB).ok());
  CHECK(trace_size_check(tl, 487, 487, 0).ok());  // 0: the 2 GiB default
  CHECK_FALSE(trace_size_check(tl, 488, 488, 0).ok());
  CHECK(trace_size_check(tl, 2297, 2297, 0).ok());  // maps formed on demand, layers lean
  CHECK_FALSE(trace_size_check(tl, 2298, 2298, 0).ok());
}

TEST_CASE("trace memory: trace_run refuses past its limit before any layer runs, and runs at the limit") {
  const ModelConfig c = test::sized_config({.d_model = 16, .n_heads = 2, .n_layers = 2, .d_ff = 32});
  const Model m = model_init_random(c, 1);
  const int64_t limit = 4 * kMiB;
  const int n = trace_tokens_fit(c, limit);
  CHECK(n == 266);
  TraceInput in;
  in.max_memory = limit;
  in.embeddings = Mat::Random(n, c.d_model);
  auto fits = trace_run(m, in);
  REQUIRE_MESSAGE(fits.ok(), fits.error());
  CHECK(held_bytes(*fits) <= limit);
  in.embeddings = Mat::Random(n + 1, c.d_model);
  auto refused = trace_run(m, in);
  REQUIRE_FALSE(refused.ok());
  CHECK(test::has(refused.error(), ": 266 tokens fit in this model."));
  CHECK(test::has(refused.error(), "--max-trace-memory SIZE (1G for this input)"));
}
