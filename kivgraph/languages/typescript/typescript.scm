; TypeScript-only patterns (typescript and tsx grammars).

; ---- declarations -------------------------------------------------------------------------
(function_signature) @decl.function
(abstract_class_declaration) @decl.class
(interface_declaration) @decl.interface
(type_alias_declaration) @decl.type_alias
(enum_declaration) @decl.enum
[(internal_module) (module)] @decl.namespace
(ambient_declaration) @ambient

; ---- bindings -----------------------------------------------------------------------------
[(required_parameter pattern: (identifier)) (optional_parameter pattern: (identifier))] @bind.param
(type_parameter name: (type_identifier) @bind.name)
(infer_type (type_identifier) @bind.name)
(mapped_type_clause name: (type_identifier) @bind.name)

; ---- names that are not references --------------------------------------------------------
(member_expression object: (non_null_expression [(identifier) (member_expression)] @skip))
(nested_identifier (identifier) @skip)
(nested_type_identifier module: (_) @skip)
(nested_type_identifier name: (type_identifier) @skip)
(type_predicate name: (identifier) @skip)
(index_signature name: (identifier) @skip)
(import_alias (identifier) @skip)

; ---- references ---------------------------------------------------------------------------
(extends_clause value: (identifier) @ref.extends.name)
(extends_clause value: (member_expression) @ref.extends.path)
(extends_type_clause type: (type_identifier) @ref.extends.name)
(extends_type_clause type: (nested_type_identifier) @ref.extends.path)
(extends_type_clause type: (generic_type name: (type_identifier) @ref.extends.name))
(extends_type_clause type: (generic_type name: (nested_type_identifier) @ref.extends.path))
(implements_clause (type_identifier) @ref.implements.name)
(implements_clause (nested_type_identifier) @ref.implements.path)
(implements_clause (generic_type name: (type_identifier) @ref.implements.name))
(implements_clause (generic_type name: (nested_type_identifier) @ref.implements.path))
(public_field_definition value: (identifier) @ref.assign.name)
(public_field_definition value: (member_expression) @ref.assign.path)
(type_identifier) @ref.type.name
(nested_type_identifier) @ref.type.path

; ---- object literals whose type is written beside them (objects.typed_keys) ------------------
(variable_declarator type: (type_annotation) value: (_)) @typed.declarator
[(satisfies_expression) (as_expression)] @typed.object
