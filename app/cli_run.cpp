// attnviz-cli's commands (being written).
namespace attnviz {}
