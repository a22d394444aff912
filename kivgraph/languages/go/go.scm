; Go, one pass: declarations, binding sites, imports and references. Reference captures are named
; after their role and anchored at an explicit parent, so declaration names, parameters, struct
; literal field keys and the inner links of a selector chain are never captured as references.

; ---- declarations
(package_clause (package_identifier) @package)
(function_declaration) @function
(method_declaration) @method
(type_declaration) @type_declaration
(field_declaration . name: (field_identifier)) @field
(field_declaration !name type: (_)) @embedded_field
(method_elem) @method_elem
(const_declaration) @const_declaration
(var_declaration) @var_declaration
(comment) @comment
(func_literal) @closure
(import_spec) @import

; ---- bindings: parameters, receivers and named results (kept inside function bodies only),
; `:=` and `var` locals, range variables, type-switch and select aliases, type parameters.
(parameter_declaration) @param
(variadic_parameter_declaration) @param
(short_var_declaration) @short_var
(range_clause left: (expression_list (identifier) @bind) ":=")
(type_switch_statement alias: (expression_list (identifier) @bind))
(receive_statement left: (expression_list (identifier) @bind) ":=")
(type_parameter_declaration name: (identifier) @type_param)

; ---- references
(field_declaration !name type: [(type_identifier) (qualified_type)] @embeds)
(field_declaration !name type: (pointer_type [(type_identifier) (qualified_type)] @embeds))
(field_declaration !name type: (generic_type type: [(type_identifier) (qualified_type)] @embeds))
(interface_type (type_elem . [(type_identifier) (qualified_type)] @embeds .))

; In `T{Name: v}` the key is a field name (never captured); in map, array and slice literals it is
; a value.
(composite_literal
  type: [(map_type) (array_type) (slice_type) (implicit_length_array_type)]
  body: (literal_value (keyed_element key: (literal_element [(identifier) (selector_expression)] @index_key))))
(keyed_element key: (literal_element (selector_expression) @read_once))

(call_expression function: [(identifier) (selector_expression)] @call)
(type_conversion_expression type: (generic_type type: [(type_identifier) (qualified_type)] @generic_call))

(argument_list [(identifier) (selector_expression)] @callback)

(short_var_declaration right: (expression_list [(identifier) (selector_expression)] @assign))
(assignment_statement right: (expression_list [(identifier) (selector_expression)] @assign))
(var_spec value: (expression_list [(identifier) (selector_expression)] @assign))
(keyed_element value: (literal_element [(identifier) (selector_expression)] @assign))

(return_statement (expression_list [(identifier) (selector_expression)] @return))

(qualified_type) @qualified
(type_identifier) @type

(literal_value (literal_element [(identifier) (selector_expression)] @read))
(expression_list [(identifier) (selector_expression)] @read_once)
; A pattern waiting for the right operand stays alive across the whole left operand, which is
; quadratic on long `a + b + ...` chains (generated tables): right operands are taken in Python.
(binary_expression left: [(identifier) (selector_expression)] @read)
(binary_expression) @binary
(unary_expression [(identifier) (selector_expression)] @read)
(index_expression [(identifier) (selector_expression)] @read)
(slice_expression [(identifier) (selector_expression)] @read)
(inc_statement [(identifier) (selector_expression)] @read)
(dec_statement [(identifier) (selector_expression)] @read)
(range_clause right: [(identifier) (selector_expression)] @read)
(if_statement condition: [(identifier) (selector_expression)] @read)
(for_statement [(identifier) (selector_expression)] @read)
(for_clause condition: [(identifier) (selector_expression)] @read)
(send_statement [(identifier) (selector_expression)] @read)
(type_assertion_expression operand: [(identifier) (selector_expression)] @read)
(expression_switch_statement value: [(identifier) (selector_expression)] @read)
(type_switch_statement value: [(identifier) (selector_expression)] @read)
(variadic_argument [(identifier) (selector_expression)] @read)
(type_conversion_expression operand: [(identifier) (selector_expression)] @read)
(parenthesized_expression [(identifier) (selector_expression)] @read)
(array_type length: [(identifier) (selector_expression)] @read)
(expression_statement [(identifier) (selector_expression)] @read)
(receive_statement right: [(identifier) (selector_expression)] @read)
