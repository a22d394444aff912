"""TypeScript and JavaScript: the syntax layer (tree-sitter queries in `*.scm`) and module resolution.

`TypeScriptAdapter` covers .ts/.tsx/.mts/.cts (declaration files included), `JavaScriptAdapter`
.js/.jsx/.mjs/.cjs; both share one implementation.
"""
