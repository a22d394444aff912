; Python, one pass: declarations, binding sites, imports and references. Every pattern is
; anchored at an explicit parent so that declaration names, parameters, keyword names and the inner
; links of an attribute chain are never captured as references. Capture names say what a node is;
; reference captures are named after their role (`extends` wins over `callback`; `read` and
; `callback` atoms inside an annotation become `type`).

; ---- declarations
(function_definition) @function
(class_definition) @class
(decorated_definition) @decorated
(function_definition body: (block . (expression_statement . (string) @docstring)))
(class_definition body: (block . (expression_statement . (string) @docstring)))
(assignment left: (identifier)) @assignment
(assignment left: [(pattern_list) (tuple_pattern) (list_pattern)]) @unpacking
(assignment left: (attribute object: (identifier) attribute: (identifier))) @attribute_assignment
(type_alias_statement left: (type (identifier))) @type_alias
(module
  (expression_statement
    [(assignment left: (identifier) @_all right: [(list) (tuple)] @all)
     (augmented_assignment left: (identifier) @_all right: [(list) (tuple)] @all)])
  (#eq? @_all "__all__"))
(import_statement) @import
(import_from_statement) @import

; ---- bindings: parameters (lambda ones count only inside functions), loop targets,
; with/except aliases, walrus, match captures; `global`/`nonlocal` names are not local.
(parameters
  [(identifier) @param
   (default_parameter name: (identifier) @param)
   (list_splat_pattern (identifier) @param)
   (dictionary_splat_pattern (identifier) @param)])
(parameters [(typed_parameter . (identifier)) (typed_default_parameter)] @typed_param)
(typed_parameter [(list_splat_pattern (identifier) @param) (dictionary_splat_pattern (identifier) @param)])
(lambda_parameters
  [(identifier) @lambda_param
   (default_parameter name: (identifier) @lambda_param)
   (list_splat_pattern (identifier) @lambda_param)
   (dictionary_splat_pattern (identifier) @lambda_param)])
(for_statement left: (identifier) @bind)
(for_in_clause left: (identifier) @bind)
(for_statement left: [(pattern_list (identifier) @bind) (tuple_pattern (identifier) @bind)])
(for_in_clause left: [(pattern_list (identifier) @bind) (tuple_pattern (identifier) @bind)])
(for_statement left: (pattern_list (tuple_pattern (identifier) @bind)))
(for_in_clause left: (pattern_list (tuple_pattern (identifier) @bind)))
(as_pattern_target (identifier) @bind)
(as_pattern_target [(tuple (identifier) @bind_in_tuple) (list (identifier) @bind_in_tuple)])
(named_expression name: (identifier) @bind)
(case_pattern (dotted_name . (identifier) @bind .))
(keyword_pattern (dotted_name . (identifier) @bind .))
(global_statement (identifier) @global)
(nonlocal_statement (identifier) @global)

; ---- annotations: reads inside these ranges are type uses
(typed_parameter type: (type) @annotated)
(typed_default_parameter type: (type) @annotated)
(function_definition return_type: (type) @annotated)
(assignment type: (type) @annotated)

; ---- references

(class_definition superclasses: (argument_list [(identifier) (attribute)] @extends))
(class_definition superclasses: (argument_list (subscript value: [(identifier) (attribute)] @extends)))

(call function: [(identifier) (attribute)] @call)
(decorator [(identifier) (attribute)] @call)

(type [(identifier) (attribute)] @type)
(generic_type [(identifier) (attribute)] @type)
(type (string) @annotation)
(subscript subscript: (string) @maybe_annotation)
(splat_type [(identifier) (attribute)] @type)

(return_statement [(identifier) (attribute)] @return)

(assignment right: [(identifier) (attribute)] @assign)
(named_expression value: [(identifier) (attribute)] @assign)

(argument_list [(identifier) (attribute)] @callback)
(keyword_argument value: [(identifier) (attribute)] @callback)

; Targets of assignments and loops are bindings or declarations; an attribute there is a use.
(assignment left: (attribute) @read)
(augmented_assignment [(identifier) (attribute)] @read)
[(pattern_list (attribute) @read)
 (tuple_pattern (attribute) @read)
 (list_pattern (attribute) @read)
 (list_splat_pattern (attribute) @read)
 (as_pattern_target (attribute) @read)]
(for_statement left: (attribute) @read)
(for_statement right: [(identifier) (attribute)] @read)
(for_in_clause right: [(identifier) (attribute)] @read)

(expression_statement [(identifier) (attribute)] @read)
(comparison_operator [(identifier) (attribute)] @read)
; A pattern waiting for the right operand stays alive across the whole left operand, which is
; quadratic on long `a + b + ...` chains: right operands are taken in Python.
(binary_operator left: [(identifier) (attribute)] @read)
(boolean_operator left: [(identifier) (attribute)] @read)
[(binary_operator) (boolean_operator)] @binary
(not_operator [(identifier) (attribute)] @read)
(unary_operator [(identifier) (attribute)] @read)
(subscript [(identifier) (attribute)] @read)
(slice [(identifier) (attribute)] @read)
(tuple [(identifier) (attribute)] @read)
(list [(identifier) (attribute)] @read)
(set [(identifier) (attribute)] @read)
(expression_list [(identifier) (attribute)] @read)
(pair [(identifier) (attribute)] @read)
(dictionary_splat [(identifier) (attribute)] @read)
(list_splat [(identifier) (attribute)] @read)
(parenthesized_expression [(identifier) (attribute)] @read)
(conditional_expression [(identifier) (attribute)] @read)
(lambda body: [(identifier) (attribute)] @read)
(default_parameter value: [(identifier) (attribute)] @read)
(typed_default_parameter value: [(identifier) (attribute)] @read)
(if_clause [(identifier) (attribute)] @read)
(if_statement condition: [(identifier) (attribute)] @read)
(elif_clause condition: [(identifier) (attribute)] @read)
(while_statement condition: [(identifier) (attribute)] @read)
(except_clause [(identifier) (attribute)] @read)
(as_pattern [(identifier) (attribute)] @read)
(with_item value: [(identifier) (attribute)] @read)
(raise_statement [(identifier) (attribute)] @read)
(assert_statement [(identifier) (attribute)] @read)
(delete_statement [(identifier) (attribute)] @read)
(yield [(identifier) (attribute)] @read)
(await [(identifier) (attribute)] @read)
(interpolation expression: [(identifier) (attribute)] @read)
(format_expression expression: [(identifier) (attribute)] @read)
(list_comprehension body: [(identifier) (attribute)] @read)
(set_comprehension body: [(identifier) (attribute)] @read)
(generator_expression body: [(identifier) (attribute)] @read)
(match_statement subject: [(identifier) (attribute)] @read)
(chevron [(identifier) (attribute)] @read)
(print_statement [(identifier) (attribute)] @read)
(exec_statement [(identifier) (attribute)] @read)
(keyword_pattern (dotted_name (identifier) (identifier)) @pattern)
(class_pattern . (dotted_name) @pattern)
(case_pattern (dotted_name (identifier) (identifier)) @pattern)
