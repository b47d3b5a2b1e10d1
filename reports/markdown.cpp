// report.md: the document as GitHub-flavoured Markdown. Charts are left out (a sentence
// points at index.html); notes.md is appended as written.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>

#include "reports/document.h"
#include "reports/text.h"

namespace stackcheck::report {
namespace {

std::string inlines(const Inlines& content, bool in_table) {
  std::string out;
  for (const auto& i : content) {
    switch (i.kind) {
      case Inline::Text: out += md_escape(i.text); break;
      case Inline::Code: out += md_code(i.text, in_table); break;
      case Inline::Strong: out += "**" + md_escape(i.text) + "**"; break;
    }
  }
  return out;
}

std::string fence_for(const std::string& body) {
  size_t longest = 0, run = 0;
  for (char c : body) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<size_t>(3, longest + 1), '`');
}

void table(std::string& out, const TableBlock& t) {
  if (!t.caption.empty()) out += "**" + md_escape(t.caption) + "**\n\n";
  auto row_text = [&](const std::vector<std::string>& cells) {
    out += "|";
    for (const auto& c : cells) out += " " + c + " |";
    out += "\n";
  };
  std::vector<std::string> head, rule;
  for (size_t i = 0; i < t.headers.size(); ++i) {
    head.push_back(md_escape(t.headers[i]));
    rule.push_back(t.numeric[i] ? "---:" : "---");
  }
  row_text(head);
  row_text(rule);
  for (size_t r = 0; r < t.rows.size(); ++r) {
    bool total = t.last_is_total && r + 1 == t.rows.size();
    std::vector<std::string> cells;
    for (const auto& c : t.rows[r]) {
      std::string s = inlines(c.content, true);
      // Markdown has no colours: a highlighted problem (and the total row) is bold instead.
      bool plain_text = c.content.size() == 1 && c.content[0].kind == Inline::Text && !s.empty();
      if (plain_text && (c.tone == "bad" || t.row_tone[r] == "bad" || total)) s = "**" + s + "**";
      cells.push_back(s.empty() ? " " : s);
    }
    row_text(cells);
  }
  out += "\n";
}

struct BlockWriter {
  std::string& out;
  void operator()(const Paragraph& p) { out += inlines(p.content, false) + "\n\n"; }
  void operator()(const TableBlock& t) { table(out, t); }
  void operator()(const CodeBlock& c) {
    std::string f = fence_for(c.text);
    out += fmt::format("{}sh\n{}\n{}\n\n", f, c.text, f);
  }
  void operator()(const ChartGrid& g) {
    if (!g.markdown_note.empty()) out += md_escape(g.markdown_note) + "\n\n";
  }
  void operator()(const TableGrid& g) {
    for (const auto& t : g.tables) table(out, t);
  }
  void operator()(const Verbatim& v) {
    out += v.text;
    if (!v.text.empty() && v.text.back() != '\n') out += "\n";
    out += "\n";
  }
};

}  // namespace

std::string render_markdown(const Document& doc) {
  std::string out = "# " + md_escape(doc.title) + "\n\n";
  std::vector<std::string> badges;
  for (const auto& b : doc.badges) {
    std::string value = b.label == "seed" || b.label == "commit" ? md_code(b.value) : "**" + md_escape(b.value) + "**";
    badges.push_back(md_escape(b.label) + " " + value);
  }
  if (!badges.empty()) out += fmt::format("{}\n\n", fmt::join(badges, " · "));
  if (!doc.command.empty()) {
    std::string f = fence_for(doc.command);
    out += fmt::format("Command:\n\n{}sh\n{}\n{}\n\n", f, doc.command, f);
  }
  out += "The same report with its charts: [index.html](index.html).\n\n";
  for (const auto& s : doc.sections) {
    out += "## " + md_escape(s.title) + "\n\n";
    for (const auto& b : s.blocks) std::visit(BlockWriter{out}, b);
  }
  while (out.ends_with("\n\n")) out.pop_back();
  return out;
}

}  // namespace stackcheck::report
