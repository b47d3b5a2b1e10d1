// The report as one document built from a run's data, then rendered twice: to Markdown
// (report.md, charts left out with a pointer to index.html) and to HTML (index.html, charts
// as inline SVG). Building decides what is said; the renderers only decide how, so the two
// files always carry the same tables. Text here is raw: each renderer escapes it.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "reports/run_data.h"

namespace stackcheck::report {

struct Inline {
  enum Kind { Text, Code, Strong };
  Kind kind = Text;
  std::string text;
};
using Inlines = std::vector<Inline>;

inline Inline text(std::string s) { return {Inline::Text, std::move(s)}; }
inline Inline code(std::string s) { return {Inline::Code, std::move(s)}; }
inline Inline strong(std::string s) { return {Inline::Strong, std::move(s)}; }

struct Cell {
  Inlines content;
  std::string tone;  // "", "good", "bad", "warn": a highlighted cell
};

struct TableBlock {
  std::string caption;  // "" for none
  std::vector<std::string> headers;
  std::vector<bool> numeric;  // per column: right-aligned figures
  std::vector<std::vector<Cell>> rows;
  std::vector<std::string> row_tone;  // per row, like Cell::tone
  bool last_is_total = false;
};

struct Paragraph {
  Inlines content;
  std::string tone;
};

struct CodeBlock {
  std::string text;
};

struct Chart {
  std::string svg;
  std::string caption;
};

// Charts side by side (HTML); in Markdown, one sentence pointing at index.html.
struct ChartGrid {
  std::vector<Chart> charts;
  std::string markdown_note;
};

// Small tables side by side (HTML); in Markdown, one after the other under their captions.
struct TableGrid {
  std::vector<TableBlock> tables;
};

struct Verbatim {  // notes.md: Markdown as written; preformatted and escaped in HTML
  std::string text;
};

using Block = std::variant<Paragraph, TableBlock, CodeBlock, ChartGrid, TableGrid, Verbatim>;

struct Section {
  std::string id, title;
  std::vector<Block> blocks;
};

struct Badge {
  std::string label, value, tone;
};

struct Document {
  std::string title;
  std::vector<Badge> badges;  // kind, status, seed, ...: the header line
  std::string command;        // the command line that ran, shown as code
  std::vector<Section> sections;
};

struct Options {
  std::string title;  // "" -> run.tsv's title, else a default for the kind
};

Document build_document(const RunData& data, const Options& options);
std::string render_markdown(const Document& doc);
std::string render_html(const Document& doc);

}  // namespace stackcheck::report
