// soak_actions: writes a random --script for the soak test (tests/gui/soak_test.sh) — edits with
// random Unicode, pastes, every toggle with valid and refused values, model and view switches (some
// without waiting for the engine: `nowait`), ablations, exports, sessions, training. The same seed
// gives the same script and the same paste and session files, byte for byte, so a failure replays.
// usage: soak_actions --seed N --count N --dir DIR --fixtures DIR > actions.txt
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "base/utf8.h"

using attnviz::utf8_append;

namespace {

// splitmix64: fixed by its definition, unlike std::uniform_int_distribution, so a seed replays the
// same script with any standard library.
struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
  int in(int lo, int hi) { return lo + below(hi - lo + 1); }
  bool chance(int percent) { return below(100) < percent; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(below(static_cast<int>(v.size())))];
  }
  std::string pick(std::initializer_list<const char*> v) { return *(v.begin() + below(static_cast<int>(v.size()))); }
};

const std::vector<std::string> kWords = {"the",      "animal", "didn't", "cross", "street", "because", "it",  "was",
                                         "too",      "tired",  "wide",   "cat",   "sat",    "on",      "mat", "trophy",
                                         "suitcase", "big",    "small",  "The",   "IT",     "a",       "dog", "and",
                                         "don't",    "x",      "42",     "3.14",  "—",      "..."};

// One piece of a sentence: a word, or text from a script or class of characters people paste.
// `in_line`: no byte that would end or damage a script line (newline, carriage return, NUL).
void append_piece(Rng& r, std::string& s, bool in_line) {
  switch (r.below(12)) {
    case 0:
    case 1:
    case 2:
    case 3: s += r.pick(kWords); break;
    case 4:
      for (int i = r.in(1, 4); i > 0; --i) utf8_append(s, static_cast<uint32_t>(0xAC00 + r.below(11172)));
      break;   // Hangul
    case 5: {  // emoji: plain, with a skin tone, a ZWJ family, a flag
      const int k = r.below(4);
      utf8_append(s, static_cast<uint32_t>(0x1F600 + r.below(80)));
      if (k == 1) utf8_append(s, static_cast<uint32_t>(0x1F3FB + r.below(5)));
      if (k == 2) utf8_append(s, 0x200D), utf8_append(s, 0x1F4BB);
      if (k == 3) utf8_append(s, 0x1F1F0), utf8_append(s, 0x1F1F7);
      break;
    }
    case 6:  // a letter under a stack of combining marks
      s += static_cast<char>('a' + r.below(26));
      for (int i = r.in(1, 12); i > 0; --i) utf8_append(s, static_cast<uint32_t>(0x0300 + r.below(0x70)));
      break;
    case 7:  // right to left: Hebrew, Arabic, with direction overrides
      if (r.chance(30)) utf8_append(s, r.chance(50) ? 0x202E : 0x200F);
      for (int i = r.in(1, 6); i > 0; --i)
        utf8_append(s, static_cast<uint32_t>(r.chance(50) ? 0x05D0 + r.below(27) : 0x0627 + r.below(36)));
      break;
    case 8: {  // control and invisible characters
      const uint32_t cps[] = {0x01,   0x07,   0x08,   0x09,   0x0B,     0x0C,   0x1B,   0x1F,
                              0x7F,   0x85,   0x9F,   0x200B, 0x200C,   0x2028, 0x2029, 0xFEFF,
                              0xFFFD, 0xFFFE, 0xFFFF, 0xE000, 0x10FFFF, 0xAD,   0x34F};
      utf8_append(s, cps[r.below(static_cast<int>(std::size(cps)))]);
      if (!in_line && r.chance(40)) s += r.pick({"\n", "\r\n", "\r", "\n\n"});
      if (!in_line && r.chance(20)) s.push_back('\0');
      break;
    }
    case 9:  // other scripts: CJK, Devanagari, Thai, Cyrillic, Greek, mathematical letters
      for (int i = r.in(1, 5); i > 0; --i) {
        const uint32_t bases[] = {0x4E00, 0x0905, 0x0E01, 0x0410, 0x03B1, 0x1D400};
        utf8_append(s, bases[r.below(6)] + static_cast<uint32_t>(r.below(30)));
      }
      break;
    case 10:
      s += r.pick({"!", "?", ",", ".", "'", "\"", "(", ")", "#", "%s", "%n", "\\", "{", "}", "[CLS]", "[SEP]",
                   "<|endoftext|>", "  "});
      break;
    default:
      if (!in_line && r.chance(50)) {  // bytes that are not UTF-8
        const char* bad[] = {"\xff", "\xc3", "\xe2\x82", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\x80", "\xc0\xaf"};
        s += bad[r.below(7)];
      } else {
        s += std::to_string(r.below(100000));
      }
  }
}

std::string random_text(Rng& r, int pieces, bool in_line) {
  std::string s;
  for (int i = 0; i < pieces; ++i) {
    if (i > 0 && r.chance(85)) s += ' ';
    append_piece(r, s, in_line);
  }
  return s;
}

struct Generator {
  Rng r;
  std::string dir, fixtures;
  std::vector<std::string> out;                    // script lines
  int pastes = 0, sessions = 0, bad_sessions = 0;  // files written so far (each its own: a replay reads the same)
  bool paused = false;       // the Train view's run was paused (a `train wait` would wait for ever)
  bool coref_shown = false;  // the coreference demo is shown (coref_arch is refused otherwise)
  bool train_coref = true;   // the Train view's demo is coreference (its settings, steps included, hold)

  void emit(const std::string& line) { out.push_back(line); }
  // A line the app may refuse (a value out of range, nothing to undo, ...): the script goes on.
  void maybe(const std::string& line) { emit("try " + line); }
  // Without waiting for the engine to answer the line before (sometimes).
  void maybe_now(const std::string& line) { emit(r.chance(40) ? "nowait try " + line : "try " + line); }

  std::string file(const std::string& name) { return dir + "/" + name; }

  void write(const std::string& path, const std::string& bytes) {
    std::ofstream f(path, std::ios::binary);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }

  void sentence() {
    const int k = r.below(10);
    if (k == 0) return emit("sentence");
    if (k == 1)
      return emit(r.pick({"sentence The animal didn't cross the street because it was too tired.",
                          "sentence The trophy didn't fit in the suitcase because it was too big.",
                          "sentence 동물은 너무 피곤해서 길을 건너지 않았다 🤖"}));
    const std::string verb = r.chance(85) ? "sentence" : r.pick({"sentence_b", "source", "compare_sentence"});
    emit(verb + " " + random_text(r, r.in(1, 16), true));
  }

  void paste() {
    const std::string path = file("paste" + std::to_string(pastes++) + ".txt");
    const int k = r.below(12);
    std::string text;
    if (k == 0)
      text = "";
    else if (k == 1)
      text = " \t\n\n ";
    else if (k == 2)
      text =
          std::string(static_cast<size_t>(r.in(1000, 300000)), static_cast<char>('a' + r.below(26)));  // one long word
    else if (k == 3)
      text = std::string((1 << 20) + r.in(1, 1000), 'x');  // over the 1 MB limit: refused
    else if (k == 4)
      text = random_text(r, r.in(60, 300), false);  // long: hundreds of tokens
    else if (k == 5)
      for (int i = 0; i < 8400; ++i) text += r.pick(kWords) + " ";  // over 8,192 tokens: refused
    else
      text = random_text(r, r.in(1, 40), false);
    write(path, text);
    emit("paste " + path);
  }

  // d_model, heads, layers, ffn, seed, score, temperature, norm: the values the engine takes, and
  // ones the script or the engine refuses (d_model 7 with 8 heads, 97 layers, ...). Valid values are
  // kept small enough that any mix of them stays a few million parameters.
  void config() {
    switch (r.below(8)) {
      case 0:
        maybe("d_model " +
              r.pick({"8", "16", "32", "32", "48", "64", "64", "128", "7", "2", "0", "-1", "8193", "abc", "12"}));
        break;
      case 1: maybe("heads " + r.pick({"1", "2", "2", "3", "4", "4", "8", "16", "0", "5", "7", "9000", "x"})); break;
      case 2: maybe("layers " + r.pick({"1", "1", "2", "2", "3", "4", "6", "0", "97", "-3", "1e2"})); break;
      case 3: maybe("ffn " + r.pick({"0", "16", "32", "64", "128", "512", "-1", "65537", ""})); break;
      case 4: maybe("seed " + r.pick({"0", "1", "2", "7", "12345", "1073741824", "-5", "big"})); break;
      case 5: maybe("score " + r.pick({"scaled_dot", "dot", "general", "additive", "cosine", ""})); break;
      case 6:
        maybe("temperature " +
              r.pick({"1", "0.5", "2", "0.001", "1000", "0.01", "100", "0", "-1", "1001", "nan", "inf", "1e-9"}));
        break;
      default: maybe("norm " + r.pick({"pre", "post", "none"}));
    }
  }

  void mask() {
    switch (r.below(6)) {
      case 0: maybe("mask causal " + r.pick({"on", "off", "maybe"})); break;
      case 1: maybe("mask window " + r.pick({"off", "0", "1", "2", "5", "-3", "4096", "5000"})); break;
      case 2: maybe("mask strided " + r.pick({"off", "1", "2", "3", "0", "-1", "4097"})); break;
      case 3: maybe("mask pad " + r.pick({"off", "1", "2", "8", "32", "64", "0", "4096", "8193"})); break;
      case 4: {  // a cell, sometimes past any sentence (refused by the engine) or past the script's limit
        const std::string far = r.pick({"40", "4095", "4096", "5000"});
        maybe("mask hide " + std::to_string(r.in(0, 12)) + " " + (r.chance(85) ? std::to_string(r.in(0, 12)) : far));
        break;
      }
      default: maybe(r.chance(70) ? "mask none" : "mask bogus 1");
    }
  }

  void toggles() {
    switch (r.below(9)) {
      case 0: maybe("vocabulary " + r.pick({"on", "off"})); break;
      case 1: maybe("words " + r.pick({"on", "off", "1"})); break;
      case 2: maybe("hide_special " + r.pick({"on", "off"})); break;
      case 3: maybe("measure " + r.pick({"weights", "value-norm", "rollout", "entropy"})); break;
      case 4: maybe("ablation " + r.pick({"zero", "mean", "random"})); break;
      case 5:
      case 6: {
        const std::string l = r.chance(80) ? std::to_string(r.in(0, 3)) : r.pick({"97", "-1", "8"});
        const std::string h = r.chance(80) ? std::to_string(r.in(0, 7)) : r.pick({"64", "-2", "8192"});
        maybe_now((r.chance(65) ? "head_off " : "head_on ") + l + " " + h);
        break;
      }
      case 7: maybe("cross " + r.pick({"on", "off"})); break;
      default: maybe(r.chance(80) ? "importance" : "generate " + r.pick({"1", "3", "0", "300"}));
    }
  }

  void selection() {
    switch (r.below(6)) {
      case 0: maybe("layer " + r.pick({"0", "1", "2", "5", "95", "-1", "4097"})); break;
      case 1: maybe("head " + r.pick({"0", "1", "3", "7", "31", "-1", "9999"})); break;
      case 2: maybe("query " + r.pick({"-1", "0", "1", "4", "11", "200", "4096", "-2", "4097"})); break;
      case 3: maybe("step " + r.pick({"0", "1", "2", "3", "4", "5", "9", "100", "-1"})); break;
      case 4:
        maybe("zoom_head " + r.pick({"-1", "0", "1", "3", "7", "40"}) +
              (r.chance(40) ? " " + r.pick({"1", "2", "16", "0", "-1"}) + " " + std::to_string(r.in(0, 50)) + " " +
                                  std::to_string(r.in(0, 50))
                            : ""));
        break;
      default:
        maybe("compare " +
              r.pick({"sentence_b", "single_vs_multi", "masked_vs_unmasked", "scaled_vs_unscaled", "other"}));
    }
  }

  void view() {
    const std::string v = r.pick({"heads", "model", "lines", "compare", "steps", "stats", "coref", "train", "translate", "nowhere"});
    if (v == "nowhere") return maybe("view " + v);
    emit((r.chance(20) ? "nowait view " : "view ") + v);
    if (v == "translate") translate();
  }

  // The Translation view: sentences of its grammar and outside it, every model and tab, heads off,
  // steps past the end (refused), the plot on a few sentences.
  void translate() {
    switch (r.below(7)) {
      case 0:
        maybe("translate text " + r.pick({"the big cat chased the small dog in the park .", "the girl saw the red car and the bird found the cake .",
                                          "the purple cat chased the dog .", "", "cat the dog saw .", "THE DOG SAW THE CAT"}));
        break;
      case 1: maybe("translate text " + random_text(r, r.in(1, 40), true)); break;
      case 2: maybe("translate model " + r.pick({"translate", "score_dot", "score_general", "score_additive", "bottleneck", "cosine"})); break;
      case 3: maybe("translate tab " + r.pick({"alignment", "steps", "scores", "bottleneck", "train", "nowhere"})); break;
      case 4: maybe("translate " + r.pick({"head_off", "head_on"}) + " 0 " + r.pick({"0", "1", "2", "3", "4", "-1"})); break;
      case 5: maybe("translate step " + r.pick({"0", "3", "9", "17", "40", "-1"})); break;
      default: maybe("translate head " + r.pick({"best", "mean", "0 1", "0 3", "1 0"}));
    }
  }

  void look() {
    switch (r.below(5)) {
      case 0: emit("lang " + r.pick({"en", "ko"})); break;
      case 1: emit("annotate " + r.pick({"on", "off"})); break;
      case 2: emit("presentation " + r.pick({"on", "off"})); break;
      case 3: maybe("colormap " + r.pick({"viridis", "magma", "high_contrast", "diverging", "rainbow"})); break;
      default: maybe("lang " + r.pick({"fr", ""}));
    }
  }

  // Model switches, often while the previous line's computation (or a load, a retrain, a training
  // run) is still in flight.
  void model() {
    const std::string fixture =
        fixtures + "/" +
        r.pick({"hf/gpt2_tiny", "hf/bert_tiny", "hf/gpt2_tiny_sharded", "families/llama_tiny", "families/qwen2_tiny",
                "families/pythia_tiny", "families/roberta_tiny", "families/mistral_tiny", "tiny.safetensors",
                "train/post_relu_sinusoidal_causal.safetensors", "no_such_model", "hf/README.md"});
    const int k = r.below(10);
    std::string line;
    if (k < 5)
      line = "model " + r.pick({"sandbox", "coref", "induction", "trained", "sandbox", "coref", "attention", "bogus"});
    else if (k < 8)
      line = "model open " + fixture;
    else if (k == 8)
      line = "model file " + fixture;
    else
      line = r.pick({"open_attention ", "open_attention_b ", "drop "}) + fixtures + "/" +
             r.pick({"attention/encoder_f16.safetensors", "attention/encdec_f32.safetensors",
                     "attention/encoder_bf16.safetensors", "hf/gpt2_tiny", "attention/reference.json"});
    coref_shown = line == "model coref" || (coref_shown && line.rfind("model ", 0) != 0 && line.rfind("open", 0) != 0);
    maybe_now(line);
  }

  // A shape of the shipped grid, every key given (coref_arch changes only the keys it names).
  std::string grid_arch() {
    return "coref_arch heads=" + r.pick({"1", "2", "4", "8"}) + " d_model=" + r.pick({"32", "64", "128"}) +
           " layers=2 ffn=0 score=scaled_dot norm=pre positions=learned";
  }

  // The coreference demo's architecture: a shipped shape loads at once; another one trains (kept
  // small, and often abandoned at once by a model switch that does not wait).
  void coref_arch() {
    if (!coref_shown) {
      emit("try model coref");
      coref_shown = true;
    }
    if (r.chance(60)) {
      maybe(grid_arch());
    } else {
      maybe("coref_arch heads=" + r.pick({"1", "2", "3", "5"}) + " d_model=" + r.pick({"8", "12", "16", "30"}) +
            " layers=" + r.pick({"1", "2", "5"}) + " ffn=" + r.pick({"0", "8"}) +
            " score=" + r.pick({"dot", "scaled_dot", "x"}));
      // The script would wait for the run (up to 3,000 steps): the next line does not, and replaces it.
      if (r.chance(50)) {
        emit("nowait try model " + r.pick({"sandbox", "induction"}));
        coref_shown = false;
      } else {
        emit("nowait try " + grid_arch());
      }
    }
    if (r.chance(20)) maybe(r.chance(50) ? "coref_swap" : "coref_swap ab");
  }

  // The Train view: runs kept short (a demo choice puts back 3,000 steps, so the steps follow it);
  // `train wait` rarely, a run in flight is what the other actions should meet.
  void train() {
    switch (r.below(12)) {
      case 0: {
        const std::string demo = r.pick({"coref", "induction", "copy"});
        maybe("train demo " + demo);
        if (demo != "copy") train_coref = demo == "coref";
        maybe("train steps " + r.pick({"4", "8", "16"}));
        break;
      }
      case 1:
        maybe("train " + r.pick({"seed 4", "heads 2", "heads 1", "d_model 16", "d_model 32", "heads 0", "d_model 2000",
                                 "report 5", "report 0", "steps 0"}));
        break;
      case 2:
      case 3:
        maybe_now("train start");
        paused = false;
        break;
      case 4:
        maybe("train pause");
        paused = true;
        break;
      case 5:
        maybe("train resume");
        paused = false;
        break;
      case 6:
        maybe("train stop");
        paused = false;
        break;
      case 7:
        maybe("train reset");
        paused = false;
        break;
      case 8:  // with the induction demo chosen, the pair trains the coreference defaults: 3,000 steps
        if (train_coref) maybe_now("train compare");
        break;
      case 9: maybe("train use"); break;
      case 10: maybe("train save " + file(r.pick({"trained", "trained.safetensors"}))); break;
      default:
        if (!paused && r.chance(50)) emit("train wait");
    }
  }

  void history() { maybe(r.chance(60) ? "undo" : "redo"); }

  void exports() {
    switch (r.below(9)) {  // a PNG draws every head of the layer on the CPU: the costly one, less often
      case 7: maybe("export view svg " + file("view.svg")); break;  // whatever view is shown, Train's may refuse
      case 8: maybe("export view png " + file("view.png") + " " + r.pick({"1", "0.5", "0", "x"})); break;
      case 0:
        maybe("export png " + file("out.png") + (r.chance(50) ? "" : " " + r.pick({"0.5", "1", "2", "0", "-1", "x"})));
        break;
      case 1:
      case 2: maybe("export csv " + file("out.csv")); break;
      case 3:
      case 4: maybe("export json " + file("out.json")); break;
      default: maybe("export " + r.pick({"svg ", "csv "}) + dir + "/no_such_dir/out");
    }
  }

  // Sessions: saved and opened again, and damaged ones (cut short, wrong values, unknown keys).
  void session() {
    if (r.chance(45) || sessions == 0) {
      emit("try save " + file("session" + std::to_string(sessions++ % 4) + ".json"));
      return;
    }
    if (r.chance(60))
      return maybe("open " + file("session" + std::to_string(r.below(std::min(sessions, 4))) + ".json"));
    const std::string path = file("bad" + std::to_string(bad_sessions++) + ".json");
    const std::string head = "{\"format\": \"attnviz.session\", \"version\": 1, ";
    std::string text;
    switch (r.below(6)) {
      case 0: text = head + "\"sentence\": \"cut"; break;
      case 1: text = head + "\"sentence\": \"x\", \"config\": {\"d_model\": 7, \"n_heads\": 8}}"; break;
      case 2: text = head + "\"sentence\": \"x\", \"ui\": {\"langauge\": \"en\"}}"; break;
      case 3:
        text =
            head +
            "\"sentence\": \"x\", \"config\": {\"d_model\": 8192, \"n_heads\": 64, \"d_ff\": 65536, \"n_layers\": 20}}";
        break;
      case 4:
        text =
            head + "\"sentence\": \"x\", \"ui\": {\"model_source\": \"file\", \"model_path\": \"" + dir + "/none\"}}";
        break;
      default: text = random_text(r, 30, false);
    }
    write(path, text);
    maybe("open " + path);
  }

  // An edit while the engine still computes the previous one.
  void edit_mid_compute() {
    emit("nowait " + std::string(r.chance(50) ? "sentence " + random_text(r, r.in(1, 12), true) : "try d_model 64"));
  }

  // One random action: each kind with its share of 100.
  void action() {
    using Kind = void (Generator::*)();
    static constexpr struct {
      int share;
      Kind act;
    } kKinds[] = {{14, &Generator::sentence},  {3, &Generator::paste},   {14, &Generator::config},
                  {6, &Generator::mask},       {9, &Generator::toggles}, {8, &Generator::selection},
                  {10, &Generator::view},      {4, &Generator::look},    {8, &Generator::model},
                  {1, &Generator::coref_arch}, {4, &Generator::train},   {5, &Generator::history},
                  {4, &Generator::exports},    {3, &Generator::session}, {3, &Generator::edit_mid_compute},
                  {4, &Generator::toggles}};
    int k = r.below(100);
    for (const auto& kind : kKinds) {
      if (k < kind.share) return (this->*kind.act)();
      k -= kind.share;
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  uint64_t seed = 1;
  int count = 2000;
  std::string dir = ".", fixtures;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--seed")
      seed = std::stoull(value);
    else if (key == "--count")
      count = std::stoi(value);
    else if (key == "--dir")
      dir = value;
    else if (key == "--fixtures")
      fixtures = value;
    else {
      std::fprintf(stderr, "usage: soak_actions --seed N --count N --dir DIR --fixtures DIR\n");
      return 2;
    }
  }
  Generator g{Rng{seed}, dir, fixtures, {}};
  g.emit("# soak_actions --seed " + std::to_string(seed) + " --count " + std::to_string(count));
  g.emit("wait_limit 60");
  g.emit("echo_lines on");
  g.emit("d_model 64");
  g.emit("layers 2");
  g.emit("ffn 64");
  g.emit("train steps 8");  // runs of a few steps: under the sanitizer a step of the demo takes ~0.1 s
  for (int i = 0; i < count; ++i) g.action();
  // The end: nothing left running, every view settled, then the peak memory.
  g.emit("train stop");
  g.emit("train pair_stop");
  g.emit("expect idle 5");
  g.emit("report memory");
  g.emit("quit");
  for (const std::string& line : g.out) std::printf("%s\n", line.c_str());
  return 0;
}
