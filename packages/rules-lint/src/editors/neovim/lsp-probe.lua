-- Headless Neovim probe for the rules-lint language server, run by neovim.test.ts as
--   nvim --headless -u init.lua FILE -c "luafile lsp-probe.lua"
-- where init.lua is the Neovim configuration of docs/editors.md.
-- Environment: PROBE_OUT (where the JSON result goes), PROBE_HOVER and
-- PROBE_COMPLETE ("line,character", 0-based).
-- It waits for the rules-lint client and the diagnostics of the opened file, asks
-- for a hover and a completion, writes what Neovim holds as JSON and quits.
local out = os.getenv('PROBE_OUT')
local function finish(result)
  local file = assert(io.open(out, 'w'))
  file:write(vim.json.encode(result))
  file:close()
  vim.cmd('qall!')
end
local function position(name)
  local line, character = os.getenv(name):match('(%d+),(%d+)')
  return { line = tonumber(line), character = tonumber(character) }
end

local bufnr = vim.api.nvim_get_current_buf()
local uri = vim.uri_from_bufnr(bufnr)

-- The configuration under test (docs/editors.md, loaded as init.lua) attaches the client.
local client
vim.wait(90000, function()
  for _, candidate in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if candidate.name == 'rules-lint' then client = candidate end
  end
  return client ~= nil
end, 50)
if not client then
  finish({
    error = 'no rules-lint client attached to the buffer',
    file = vim.api.nvim_buf_get_name(bufnr),
    server = vim.fn.exepath('rules-lint'),
  })
  return
end

local ok = vim.wait(90000, function()
  return #vim.diagnostic.get(bufnr) > 0
end, 50)
if not ok then
  finish({ error = 'no diagnostics within 90 s' })
  return
end

local diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(bufnr)) do
  table.insert(diagnostics, {
    code = d.code,
    severity = d.severity,
    message = d.message,
    line = d.lnum,
    character = d.col,
    end_line = d.end_lnum,
    end_character = d.end_col,
    source = d.source,
  })
end

local hover = client.request_sync('textDocument/hover', {
  textDocument = { uri = uri },
  position = position('PROBE_HOVER'),
}, 30000, bufnr)
local completion = client.request_sync('textDocument/completion', {
  textDocument = { uri = uri },
  position = position('PROBE_COMPLETE'),
}, 30000, bufnr)

local labels = {}
local items = completion and completion.result or {}
if items.items then items = items.items end
for _, item in ipairs(items) do
  table.insert(labels, item.label)
end
finish({
  diagnostics = diagnostics,
  hover = hover and hover.result and hover.result.contents and hover.result.contents.value or vim.NIL,
  completion = labels,
  client = client.name,
})
