-- The tree-sitter grammar in a real Neovim (0.7 and later), installed as docs/editors.md says:
-- the compiled parser in a runtimepath folder's parser/toolspec.so, the query in its
-- queries/toolspec/highlights.scm. Every spec of specs/ parses without an error, the highlighter
-- starts, and the query gives the tokens of a spec their captures. scripts/neovim-test.sh runs
-- it, with TOOLSPEC_RTP (that folder) and TOOLSPEC_ROOT (the repository) set.
local rtp = assert(os.getenv('TOOLSPEC_RTP'), 'TOOLSPEC_RTP')
local root = assert(os.getenv('TOOLSPEC_ROOT'), 'TOOLSPEC_ROOT')
vim.opt.runtimepath:prepend(rtp)

local failed = 0
local function check(ok, what, detail)
  io.stdout:write((ok and 'ok    ' or 'FAIL  ') .. what .. (ok and '' or (': ' .. vim.inspect(detail))) .. '\n')
  if not ok then
    failed = failed + 1
  end
  return ok
end

vim.filetype.add({ extension = { toolspec = 'toolspec' } })
local specs = vim.fn.glob(root .. '/specs/*.toolspec', false, true)
check(#specs >= 40, 'specs/ holds the specs', #specs)
local broken = {}
for _, file in ipairs(specs) do
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  local tree = vim.treesitter.get_parser(buf, 'toolspec'):parse()[1]
  if tree:root():has_error() then
    table.insert(broken, file)
  end
end
check(#broken == 0, 'every spec of specs/ parses in Neovim', broken)

vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/specs/02_refund_flow.toolspec'))
local buf = vim.api.nvim_get_current_buf()
if vim.fn.has('nvim-0.8') == 1 then -- 0.7 detects filetypes with filetype.vim first
  check(vim.bo[buf].filetype == 'toolspec', 'the filetype', vim.bo[buf].filetype)
end
if vim.treesitter.start then
  vim.treesitter.start(buf)
else -- Neovim 0.7
  vim.treesitter.highlighter.new(vim.treesitter.get_parser(buf, 'toolspec'))
end
check(vim.treesitter.highlighter.active[buf] ~= nil, 'the highlighter runs')

local get_query = vim.treesitter.query.get or vim.treesitter.query.get_query
local query = get_query('toolspec', 'highlights')
if check(query ~= nil, 'Neovim finds queries/toolspec/highlights.scm') then
  local tree = vim.treesitter.get_parser(buf, 'toolspec'):parse()[1]
  local seen = {}
  for id, node in query:iter_captures(tree:root(), buf, 0, -1) do
    local text = vim.treesitter.get_node_text and vim.treesitter.get_node_text(node, buf)
      or vim.treesitter.query.get_node_text(node, buf)
    seen[text .. ' @' .. query.captures[id]] = true
  end
  for _, want in ipairs({
    'refund_flow @type.definition',
    'lookup @label',
    'call @keyword',
    'lookup_order @function.call',
    'order_id @variable.parameter',
    'in_order @constant',
    'output @variable.builtin',
    '@example\\.com$ @string.regexp',
    '12999 @number',
  }) do
    check(seen[want], 'captured: ' .. want)
  end
end

io.stdout:write(string.format('nvim-highlight: %d failed\n', failed))
os.exit(failed == 0 and 0 or 1)
