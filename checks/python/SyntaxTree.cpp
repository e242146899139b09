//===- SyntaxTree.cpp - A parsed module, flattened for the walks ----------===//
#include "SyntaxTree.h"

#include "Syntax.h"

using namespace tether::python;

SyntaxTree::SyntaxTree(const TSTree *Source, std::string_view Text)
    : Lines(llvm::StringRef(Text.data(), Text.size())) {
  TSNode Root = ts_tree_root_node(Source);
  // Python has about one node per five bytes; a fourth of the length is
  // room enough for most files (a denser one grows the array once), and
  // the room not used is never touched.
  Nodes.reserve(Text.size() / 4 + 64);
  // One cursor walk in document order. Last[D] is the entry last placed at
  // depth D, whose NextSibling the next entry at that depth fills in.
  TSTreeCursor C = ts_tree_cursor_new(Root);
  std::vector<uint32_t> Last;
  uint32_t Depth = 0;
  while (true) {
    TSNode N = ts_tree_cursor_current_node(&C);
    uint32_t I = (uint32_t)Nodes.size();
    Entry &E = Nodes.emplace_back();
    E.StartByte = ts_node_start_byte(N);
    E.EndByte = ts_node_end_byte(N);
    E.NextSibling = 0;
    E.ChildCount = 0;
    E.Symbol = ts_node_symbol(N);
    E.Field = Depth ? ts_tree_cursor_current_field_id(&C) : 0;
    E.Flags = (ts_node_is_named(N) ? Named : 0) |
              (ts_node_is_missing(N) ? Missing : 0) |
              (ts_node_is_extra(N) ? Extra : 0) |
              (ts_node_has_error(N) ? HasError : 0);
    if (Depth == 0) {
      E.Parent = 0;
    } else {
      uint32_t Parent = Last[Depth - 1];
      E.Parent = Parent;
      ++Nodes[Parent].ChildCount;
      // A sibling of the entry last placed at this depth, unless that one
      // belongs to an earlier parent.
      if (Last.size() > Depth && Nodes[Last[Depth]].Parent == Parent)
        Nodes[Last[Depth]].NextSibling = I;
    }
    if (Last.size() <= Depth)
      Last.resize(Depth + 1);
    Last[Depth] = I;
    if (ts_tree_cursor_goto_first_child(&C)) {
      ++Depth;
      continue;
    }
    bool More = false;
    while (Depth > 0) {
      if (ts_tree_cursor_goto_next_sibling(&C)) {
        More = true;
        break;
      }
      ts_tree_cursor_goto_parent(&C);
      --Depth;
    }
    if (!More)
      break;
  }
  ts_tree_cursor_delete(&C);
}

std::unique_ptr<SyntaxTree> tether::python::parseSyntax(TSParser *Parser,
                                                        std::string_view Text) {
  TSTree *T =
      ts_parser_parse_string(Parser, nullptr, Text.data(), (uint32_t)Text.size());
  if (!T)
    return nullptr;
  auto Out = std::make_unique<SyntaxTree>(T, Text);
  ts_tree_delete(T);
  return Out;
}

TSPoint SyntaxTree::pointAt(uint32_t Byte) const {
  auto [Row, Column] = Lines.at(Byte);
  return TSPoint{Row, Column};
}

const char *tether::python::typeName(SyntaxNode N) {
  return ts_language_symbol_name(Grammar::get().Lang, symbolOf(N));
}

SyntaxNode tether::python::childAt(SyntaxNode N, uint32_t I) {
  const SyntaxTree &T = *N.Tree;
  if (I >= T.at(N.Index).ChildCount)
    return {};
  uint32_t C = N.Index + 1;
  while (I-- > 0)
    C = T.at(C).NextSibling;
  return {&T, C};
}
