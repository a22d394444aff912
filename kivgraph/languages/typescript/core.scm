; Patterns valid in all three grammars (typescript, tsx, javascript).
;
; Capture names are read by this package's Python modules. `ref.<role>.name` captures a simple
; name node, `ref.<role>.path` a member expression or qualified name; roles are applied in priority
; order (see references.ROLE_CAPTURES), so a generic pattern never overrides a specific one.
; Module-level statements are read from the root's children in Python: a pattern rooted at
; `program` stays in progress over the whole tree and costs more than all others together.

; ---- declarations -------------------------------------------------------------------------
[(function_declaration) (generator_function_declaration)] @decl.function
(class_declaration) @decl.class
(export_statement) @export
(comment) @comment

; ---- imports ------------------------------------------------------------------------------
(call_expression function: (import) arguments: (arguments . (string) .)) @import.dynamic
(call_expression
  function: (identifier) @_require
  arguments: (arguments . (string) .)
  (#eq? @_require "require")) @import.require

; ---- bindings -----------------------------------------------------------------------------
(arrow_function parameter: (identifier) @bind.name)
(catch_clause parameter: (identifier) @bind.name)
(for_in_statement kind: _ left: (identifier) @bind.name)
(variable_declarator name: (identifier)) @bind.var
(shorthand_property_identifier_pattern) @bind.name
(pair_pattern value: (identifier) @bind.name)
(array_pattern (identifier) @bind.name)
(rest_pattern (identifier) @bind.name)
(assignment_pattern left: (identifier) @bind.name)

; ---- names that are not references --------------------------------------------------------
(member_expression object: [(identifier) (member_expression)] @skip)
(function_expression name: (identifier) @skip)
(class name: (_) @skip)

; ---- references ---------------------------------------------------------------------------
(call_expression function: (identifier) @ref.call.name)
(call_expression function: (member_expression) @ref.call.path)
(new_expression constructor: (identifier) @ref.call.name)
(new_expression constructor: (member_expression) @ref.call.path)
(decorator (identifier) @ref.call.name)
(decorator (member_expression) @ref.call.path)
(arguments (identifier) @ref.callback.name)
(arguments (member_expression) @ref.callback.path)
(assignment_expression right: (identifier) @ref.assign.name)
(assignment_expression right: (member_expression) @ref.assign.path)
(variable_declarator value: (identifier) @ref.assign.name)
(variable_declarator value: (member_expression) @ref.assign.path)
(pair value: (identifier) @ref.assign.name)
(pair value: (member_expression) @ref.assign.path)
(shorthand_property_identifier) @ref.assign.name
(return_statement (identifier) @ref.return.name)
(return_statement (member_expression) @ref.return.path)
(arrow_function body: (identifier) @ref.return.name)
(arrow_function body: (member_expression) @ref.return.path)
(identifier) @ref.read.name
(member_expression) @ref.read.path
