// The string table. Order follows the Str enum; a static_assert keeps the two in step.
#include "app/strings.h"

#include <iterator>

namespace attnviz {

namespace {

struct Entry {
  const char* en;
  const char* ko;
};

constexpr Entry kStrings[] = {
    {"attnviz — multi-head attention, head by head", "attnviz — 멀티 헤드 어텐션, 헤드별로 보기"},
    {"View", "보기"},
    {"Language", "언어"},
    {"Presets", "예문"},
    {"Sentence", "문장"},
    {"Model & masks", "모델과 마스킹"},
    {"Heads", "헤드"},
    {"Sentence", "문장"},
    {"Source sentence (keys, values)", "소스 문장 (키, 밸류)"},
    {"Cross-attention", "크로스 어텐션"},
    {"Tokens", "토큰"},
    {"out of vocabulary", "어휘 밖 단어"},
    {"Model size", "모델 크기"},
    {"d_model", "d_model (모델 차원)"},
    {"Heads", "헤드 수"},
    {"Layers", "레이어 수"},
    {"FFN width", "FFN 너비"},
    {"Seed", "시드"},
    {"Re-roll", "다시 뽑기"},
    {"LayerNorm", "레이어 정규화"},
    {"post (paper, BERT)", "post (논문, BERT)"},
    {"pre (GPT, ViT)", "pre (GPT, ViT)"},
    {"Positions", "위치 인코딩"},
    {"sinusoidal", "사인파"},
    {"learned", "학습"},
    {"none", "없음"},
    {"Activation", "활성화 함수"},
    {"Scoring", "스코어 함수"},
    {"scaled dot-product", "스케일드 닷-프로덕트"},
    {"dot-product (no scaling)", "닷-프로덕트 (스케일링 없음)"},
    {"general (Luong)", "general (루옹)"},
    {"additive (Bahdanau)", "additive (바다나우)"},
    {"Divide by √d_k", "√d_k로 나누기"},
    {"Temperature τ", "온도 τ"},
    {"Masks", "마스킹"},
    {"Causal (hide the future)", "인과 마스크 (미래 가리기)"},
    {"Padding", "패딩 마스크"},
    {"pad to", "패딩 길이"},
    {"Local window", "로컬 윈도우"},
    {"radius r", "반경 r"},
    {"Strided", "스트라이드"},
    {"stride s", "간격 s"},
    {"Custom cells", "사용자 지정 셀"},
    {"Ctrl+click a heatmap cell to hide or show that key", "히트맵 셀을 Ctrl+클릭하면 그 키를 가리거나 보입니다"},
    {"Clear", "지우기"},
    {"Layer", "레이어"},
    {"Head", "헤드"},
    {"Colours", "색상"},
    {"Numbers in cells", "셀에 숫자 표시"},
    {"Zoom", "확대"},
    {"All heads", "모든 헤드"},
    {"query", "쿼리"},
    {"key", "키"},
    {"weight", "가중치"},
    {"raw score q·k", "원점수 q·k"},
    {"scaled score", "스케일된 점수"},
    {"computing…", "계산 중…"},
    {"(the previous result is still shown)", "(이전 결과를 계속 표시합니다)"},
    {"hidden by the mask", "마스크로 가려짐"},
    {"Click a query token (row label) to highlight its row in every head", "쿼리 토큰(행 이름)을 누르면 모든 헤드에서 그 행이 강조됩니다"},
    // shell
    {"File", "파일"},
    {"Open session…", "세션 열기…"},
    {"Save session…", "세션 저장…"},
    {"Export PNG of the heads…", "헤드 PNG로 내보내기…"},
    {"Export CSV of the head…", "헤드 CSV로 내보내기…"},
    {"Export JSON of the trace…", "트레이스 JSON으로 내보내기…"},
    {"Quit", "끝내기"},
    {"Presentation mode", "발표 모드"},
    {"High-contrast colours", "고대비 색상"},
    {"Heads", "헤드"},
    {"Model view", "모델 전체"},
    {"Lines", "연결선"},
    {"Compare", "비교"},
    {"Step by step", "단계별 계산"},
    {"Statistics", "통계"},
    {"Path", "경로"},
    {"OK", "확인"},
    {"Cancel", "취소"},
    {"Scale", "배율"},
    {"Saved", "저장함"},
    {"Opened", "열었음"},
    // @model_view
    // @lines
    // @compare
    // @steps
    // @stats
};
static_assert(std::size(kStrings) == static_cast<size_t>(Str::count_), "one entry per Str value");

}  // namespace

const char* tr(Lang lang, Str id) {
  const Entry& e = kStrings[static_cast<size_t>(id)];
  return lang == Lang::ko ? e.ko : e.en;
}

}  // namespace attnviz
