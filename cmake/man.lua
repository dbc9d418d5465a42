-- SPDX-License-Identifier: MIT
-- A pandoc filter that makes a man page of one docs/hpmon*.md
-- (docs/CMakeLists.txt, cmake/man-page.cmake).
--
-- The page's first line, "# NAME(SECTION)", gives the man page's name and
-- section; the "##" headings under it become its sections (.SH) and "###"
-- its subsections (.SS). The rest is written for people reading the
-- repository, so a few things change on the way:
--   - tables become tagged paragraphs (.TP), as man pages list options:
--     tbl tables of long cells do not fit a terminal (groff warns, and
--     man shows them cut or squeezed to a word a line);
--   - in the text, "docs/hpmon-X.md" becomes hpmon-X(1), and another
--     "docs/Y.md" the path it is installed at (metadata "docdir"); code
--     is left as written, since it quotes what hpmon prints;
--   - page references, "hpmon-stat(1)", are set in bold and not broken;
--   - a "## Tests" section, a list of the repository's test files, is
--     left out;
--   - no hyphenation, and a ragged right margin.
local stringify = pandoc.utils.stringify

local docdir = nil
local section_of_pages = '1'

local function fix_paths(s)
  s = s:gsub('docs/(hpmon[%w%-]*)%.md', '%1(' .. section_of_pages .. ')')
  if docdir then
    s = s:gsub('docs/([%w%-_]+%.md)', docdir .. '/%1')
  end
  return s
end

-- A page reference, "hpmon-stat(1)", in bold as man pages write them,
-- and never broken at its hyphen at the end of a line.
local function page_refs(s)
  local out = {}
  local pos = 1
  while true do
    local a, b, name, sec = s:find('([%a_][%w%-_.]*)%((%d)%)', pos)
    if not a then
      break
    end
    if a > pos then
      table.insert(out, pandoc.Str(s:sub(pos, a - 1)))
    end
    table.insert(out, pandoc.RawInline('man',
      '\\%\\fB' .. name:gsub('%-', '\\-') .. '\\fR(' .. sec .. ')'))
    pos = b + 1
  end
  if pos == 1 then
    return nil
  end
  if pos <= #s then
    table.insert(out, pandoc.Str(s:sub(pos)))
  end
  return out
end

local function header_names(t)
  local names = {}
  if t.head and #t.head.rows > 0 then
    for i, c in ipairs(t.head.rows[1].cells) do
      names[i] = stringify(c.contents)
    end
  end
  return names
end

-- A row becomes an item: its first cell the tag, the others the text.
-- With more than two columns each further cell is a paragraph led by its
-- column's name, which would otherwise be lost.
-- A cell that is one long code span (an example line) is shown as a block
-- of its own: in a paragraph it cannot be fitted to the line.
local function cell_blocks(c)
  local b = c.contents
  if #b == 1 and (b[1].t == 'Plain' or b[1].t == 'Para') and #b[1].content == 1
      and b[1].content[1].t == 'Code' and #b[1].content[1].text > 40 then
    return { pandoc.CodeBlock(b[1].content[1].text) }, true
  end
  return b, false
end

local function table_to_list(t)
  local names = header_names(t)
  local items = {}
  for _, body in ipairs(t.bodies) do
    for _, row in ipairs(body.body) do
      local cells = row.cells
      local tag = pandoc.utils.blocks_to_inlines(cells[1].contents)
      local text = {}
      for j = 2, #cells do
        local blocks, code = cell_blocks(cells[j])
        if #cells > 2 and names[j] and names[j] ~= '' then
          local label = pandoc.Emph({ pandoc.Str(names[j] .. ':') })
          if code then
            table.insert(blocks, 1, pandoc.Para({ label }))
          else
            local inl = pandoc.utils.blocks_to_inlines(blocks)
            table.insert(inl, 1, pandoc.Space())
            table.insert(inl, 1, label)
            blocks = { pandoc.Para(inl) }
          end
        end
        for _, b in ipairs(blocks) do
          table.insert(text, b)
        end
      end
      if #text == 0 then
        text = { pandoc.Plain({}) }
      end
      table.insert(items, { tag, { text } })
    end
  end
  return pandoc.DefinitionList(items)
end

local function page(doc)
  local blocks = doc.blocks
  local first = blocks[1]
  local title = first and first.t == 'Header' and first.level == 1 and stringify(first) or ''
  local name, sec = title:match('^([%w%-]+)%((%d)%)$')
  if not name then
    error('the first line must be "# NAME(SECTION)", as "# hpmon-stat(1)"; it is "'
          .. (first and stringify(first) or '') .. '"')
  end
  doc.meta.title = pandoc.MetaString(name)
  doc.meta.section = pandoc.MetaString(sec)
  local out = {}
  local skip = false
  for i = 2, #blocks do
    local b = blocks[i]
    if b.t == 'Header' then
      if b.level == 1 then
        error('only the first line may be a "#" heading; "' .. stringify(b) .. '" should be "##"')
      end
      if b.level == 2 then
        skip = stringify(b) == 'Tests'
      end
      b.level = b.level - 1
    end
    if not skip then
      table.insert(out, b)
    end
  end
  -- No hyphenation, text not stretched to the right margin: the pages are
  -- full of option and event names, which a hyphen at the end of a line
  -- would change, and which are read as code, where wide gaps mislead.
  table.insert(out, 1, pandoc.RawBlock('man', '.nh\n.ad l'))
  doc.blocks = out
  return doc
end

return {
  {
    Meta = function(m)
      if m.docdir then
        docdir = stringify(m.docdir)
      end
    end,
  },
  { Pandoc = page },
  {
    Table = table_to_list,
    Str = function(s)
      local text = fix_paths(s.text)
      return page_refs(text) or pandoc.Str(text)
    end,
    -- "\|" is how a "|" is written in code in a table cell; GitHub drops
    -- the backslash, and so do the pages.
    Code = function(c)
      c.text = c.text:gsub('\\|', '|')
      return c
    end,
  },
}
