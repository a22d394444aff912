; Everything the Dart syntax layer reads from one file beyond its top-level and class-body
; children (walked directly in declarations.py), in a single pass. Capture names are dispatched
; on in references.py.
;
; tree-sitter-dart 0.1.0 does not nest member accesses: `a.b.c()` is the identifier `a`
; followed by sibling `selector` nodes. Each selector part is captured as an event (member,
; call, index, type arguments) and chains are rebuilt from byte positions.

; --- local functions (the only declarations below class bodies) ---------------------------
(local_function_declaration) @local_function

; --- member-access chains -------------------------------------------------------------------
(unconditional_assignable_selector (identifier) @chain.member)
(conditional_assignable_selector (identifier) @chain.member)
(cascade_selector (identifier) @chain.cascade)
(selector (argument_part) @chain.call)
(cascade_section (argument_part) @chain.call)
(cascade_section) @cascade_section
(unconditional_assignable_selector (index_selector) @chain.index)
(conditional_assignable_selector (index_selector) @chain.index)
(selector (type_arguments) @chain.type_arguments)
(new_expression) @construct
(const_object_expression) @construct

; --- positions that give a bare name (or the head of a chain) its role --------------------
(argument (identifier) @role.callback)
(named_argument (identifier) @role.callback)
(return_statement (identifier) @role.return)
(function_body (identifier) @role.return)
(assignment_expression right: (identifier) @role.assign)
(initialized_variable_definition value: (identifier) @role.assign)
(initialized_identifier (identifier) (identifier) @role.assign)
(static_final_declaration (identifier) (identifier) @role.assign)
(field_initializer (identifier) (identifier) @role.assign)
(cascade_section (identifier) @role.assign)
(expression_statement (identifier) @role.read)
(assignable_expression (identifier) @role.read)
(additive_expression (identifier) @role.read)
(multiplicative_expression (identifier) @role.read)
(relational_expression (identifier) @role.read)
(equality_expression (identifier) @role.read)
(logical_and_expression (identifier) @role.read)
(logical_or_expression (identifier) @role.read)
(if_null_expression (identifier) @role.read)
(conditional_expression (identifier) @role.read)
(unary_expression (identifier) @role.read)
(await_expression (identifier) @role.read)
(parenthesized_expression (identifier) @role.read)
(list_literal (identifier) @role.read)
(pair (identifier) @role.read)
(template_substitution (identifier) @role.read)
(template_substitution (identifier_dollar_escaped) @role.read)
(type_test_expression (identifier) @role.read)
(type_cast_expression (identifier) @role.read)
(throw_expression (identifier) @role.read)
(spread_element (identifier) @role.read)
(for_loop_parts value: (identifier) @role.read)
(switch_statement_case (identifier) @role.read)
(constant_pattern (identifier) @role.read)
(constant_pattern (qualified) @qualified)
(annotation name: (identifier) @annotation)

; --- types and heritage ---------------------------------------------------------------------
(type_identifier) @type
(superclass (type_identifier) @extends)
(mixins (type_identifier) @extends)
(mixin_declaration (type_identifier) @extends)
(interfaces (type_identifier) @implements)
(extension_declaration class: (type_identifier) @extends)

; --- bindings -------------------------------------------------------------------------------
(formal_parameter) @binding.parameter
(constructor_param (identifier) @binding.name)
(super_formal_parameter (identifier) @binding.name)
(initialized_variable_definition) @binding.local
(for_loop_parts name: (identifier) @binding.for)
(catch_parameters (identifier) @binding.name)
(variable_pattern (identifier) @binding.name)
(type_parameter . (type_identifier) @binding.generic)
