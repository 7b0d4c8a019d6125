-- `toolspec lsp` driven by a real editor: headless Neovim (Debian's `neovim`, 0.7 and later; its
-- own LSP client, no plugin) opens a spec, receives the server's diagnostics and sees them go
-- once the typo is fixed, completes a tool name from the transcript the spec's glob matches, and
-- formats the file, which must then equal `toolspec fmt`'s output. scripts/neovim-test.sh runs
-- it: nvim --headless --clean -c "luafile tests/nvim/lsp_e2e.lua", with TOOLSPEC_BIN and
-- TOOLSPEC_PROJECT (a scratch project: toolspec.toml, runs/, specs/coding.toolspec) set.
local bin = assert(os.getenv('TOOLSPEC_BIN'), 'TOOLSPEC_BIN')
local project = assert(os.getenv('TOOLSPEC_PROJECT'), 'TOOLSPEC_PROJECT')
local spec = project .. '/specs/coding.toolspec'
local TIMEOUT = 20000

local failed = 0
local function check(ok, what, detail)
  io.stdout:write((ok and 'ok    ' or 'FAIL  ') .. what .. (ok and '' or (': ' .. vim.inspect(detail))) .. '\n')
  if not ok then
    failed = failed + 1
  end
  return ok
end
local function finish()
  vim.lsp.stop_client(vim.lsp.get_active_clients())
  vim.wait(2000, function()
    return #vim.lsp.get_active_clients() == 0
  end, 50)
  io.stdout:write(string.format('nvim-lsp: %d failed\n', failed))
  os.exit(failed == 0 and 0 or 1)
end

vim.cmd('edit ' .. vim.fn.fnameescape(spec))
local buf = vim.api.nvim_get_current_buf()
vim.bo[buf].filetype = 'toolspec'
local client_id = vim.lsp.start_client({ name = 'toolspec', cmd = { bin, 'lsp' }, root_dir = project })
if not check(client_id ~= nil, 'the server starts') then
  finish()
end
vim.lsp.buf_attach_client(buf, client_id)

-- 1. Diagnostics: the spec misspells `order`.
local function codes()
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(out, string.format('%d:%s', d.lnum + 1, tostring(d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code))))
  end
  table.sort(out)
  return out
end
local got = vim.wait(TIMEOUT, function()
  return #vim.diagnostic.get(buf) > 0
end, 20)
check(got and vim.deep_equal(codes(), { '4:toolspec::unknown-keyword' }), 'a diagnostic with its code at the typo', codes())

-- 2. Fixing the typo (a didChange) clears it.
vim.api.nvim_buf_set_lines(buf, 3, 4, true, { '  order in_order' })
got = vim.wait(TIMEOUT, function()
  return #vim.diagnostic.get(buf) == 0
end, 20)
check(got, 'the diagnostic goes once the typo is fixed', codes())

-- 3. Completion after `call `: the tools of the transcript the spec's glob matches.
vim.api.nvim_buf_set_lines(buf, 5, 5, true, { '  call ' })
local params = { textDocument = vim.lsp.util.make_text_document_params(buf), position = { line = 5, character = 7 } }
local responses = vim.lsp.buf_request_sync(buf, 'textDocument/completion', params, TIMEOUT) or {}
local items = {}
for _, r in pairs(responses) do
  local result = r.result or {}
  for _, item in ipairs(result.items or result) do
    items[item.label] = item
  end
end
local labels = vim.tbl_keys(items)
table.sort(labels)
for _, tool in ipairs({ 'Bash', 'Edit', 'Read', 'TodoWrite' }) do
  check(items[tool] ~= nil, 'completion after `call ` offers ' .. tool, labels)
end

-- Accept `Edit` as the editor does: its text edit, or its insert text at the cursor.
local edit = items['Edit']
if edit then
  if edit.textEdit then
    vim.lsp.util.apply_text_edits({ edit.textEdit }, buf, 'utf-16')
  else
    vim.api.nvim_buf_set_text(buf, 5, 7, 5, 7, { edit.insertText or edit.label })
  end
end
check(vim.api.nvim_buf_get_lines(buf, 5, 6, true)[1] == '  call Edit', 'the completed line', vim.api.nvim_buf_get_lines(buf, 5, 6, true))

-- 4. Formatting equals `toolspec fmt`.
local before = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, true), '\n') .. '\n'
local unformatted = project .. '/specs/unformatted.toolspec'
vim.fn.writefile(vim.split(before, '\n', { plain = true }), unformatted, 'b')
local expected = vim.fn.system({ bin, 'fmt', '--stdout', unformatted })
check(vim.v.shell_error == 0, 'toolspec fmt --stdout', expected)
check(expected ~= before, 'the buffer is not formatted yet')
params = { textDocument = vim.lsp.util.make_text_document_params(buf), options = { tabSize = 2, insertSpaces = true } }
responses = vim.lsp.buf_request_sync(buf, 'textDocument/formatting', params, TIMEOUT) or {}
for _, r in pairs(responses) do
  check(r.err == nil, 'formatting answers', r.err)
  vim.lsp.util.apply_text_edits(r.result or {}, buf, 'utf-16')
end
local after = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, true), '\n') .. '\n'
check(after == expected, 'the formatted buffer equals toolspec fmt', { buffer = after, fmt = expected })

finish()
