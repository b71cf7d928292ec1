-- Headless Neovim probe for the rules-lint language server, run by neovim.test.ts as
--   nvim --headless --clean FILE -c "luafile lsp-probe.lua"
-- Environment: RULES_LINT_CLI (dist/cli.js), PROBE_OUT (where the JSON result goes),
-- PROBE_HOVER and PROBE_COMPLETE ("line,character", 0-based).
-- It starts the server with Neovim's built-in client, as a user's config would,
-- waits for the diagnostics of the opened file, asks for a hover and a completion,
-- writes what Neovim holds as JSON and quits.
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
local client_id = vim.lsp.start_client({
  name = 'rules-lint',
  cmd = { 'node', os.getenv('RULES_LINT_CLI'), 'lsp', '--stdio' },
  root_dir = vim.fn.getcwd(),
})
if not client_id then
  finish({ error = 'the language server did not start' })
  return
end
vim.lsp.buf_attach_client(bufnr, client_id)

local ok = vim.wait(20000, function()
  return #vim.diagnostic.get(bufnr) > 0
end, 50)
if not ok then
  finish({ error = 'no diagnostics within 20 s' })
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

local client = vim.lsp.get_client_by_id(client_id)
local hover = client.request_sync('textDocument/hover', {
  textDocument = { uri = uri },
  position = position('PROBE_HOVER'),
}, 10000, bufnr)
local completion = client.request_sync('textDocument/completion', {
  textDocument = { uri = uri },
  position = position('PROBE_COMPLETE'),
}, 10000, bufnr)

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
