; Everything the Rust syntax layer reads from one file, in a single pass.
; Capture names are dispatched on in extract.py: decl.<kind>, use/extern_crate/mod, binding.*,
; ref.<role> (a reference node and its role), ref.inner (a node that is part of a longer path
; captured elsewhere, so it is not a reference of its own), skip (ranges whose names are not uses).

; --- declarations -------------------------------------------------------------------------
(function_item) @decl.function
(function_signature_item) @decl.function
(struct_item) @decl.struct
(enum_item) @decl.enum
(union_item) @decl.union
(trait_item) @decl.trait
(type_item) @decl.type_alias
(associated_type) @decl.type_alias
(const_item) @decl.constant
(static_item) @decl.constant
(macro_definition) @decl.macro
(mod_item) @decl.module
(enum_variant) @decl.enum_member
(field_declaration) @decl.field
(visibility_modifier) @visibility
(impl_item) @impl

; --- imports -------------------------------------------------------------------------------
(use_declaration) @use
(extern_crate_declaration) @extern_crate
(attribute_item) @attribute
(line_comment (outer_doc_comment_marker)) @doc
(block_comment (outer_doc_comment_marker)) @doc

; --- bindings ------------------------------------------------------------------------------
(parameter) @binding.parameter
(self_parameter) @binding.self
(let_declaration) @binding.let
(let_condition pattern: (_) @binding.pattern)
(for_expression pattern: (_) @binding.pattern)
(match_arm pattern: (_) @binding.pattern)
(closure_parameters (identifier) @binding.pattern)
(type_parameter name: (type_identifier) @binding.generic)
(const_parameter name: (identifier) @binding.generic)

; --- references: role-specific positions ----------------------------------------------------
(call_expression function: (_) @ref.call)
(generic_function function: (_) @ref.call)
(macro_invocation macro: (_) @ref.call)
(token_tree (identifier) @ref.macro_call . (token_tree . "("))
(struct_expression name: (_) @ref.type)
(tuple_struct_pattern type: (_) @ref.read)
(struct_pattern type: (_) @ref.type)
(impl_item trait: (_) @ref.implements)
(trait_item bounds: (trait_bounds (_) @ref.extends))
(arguments (identifier) @ref.callback)
(arguments (scoped_identifier) @ref.callback)
(return_expression (identifier) @ref.return)
(return_expression (scoped_identifier) @ref.return)
(assignment_expression right: (identifier) @ref.assign)
(assignment_expression right: (scoped_identifier) @ref.assign)
(let_declaration value: (identifier) @ref.assign)
(let_declaration value: (scoped_identifier) @ref.assign)
(field_initializer value: (identifier) @ref.assign)
(field_initializer value: (scoped_identifier) @ref.assign)

; --- references: paths and member accesses anywhere (role read unless set above) ----------
(scoped_identifier) @ref.path
(scoped_identifier path: (scoped_identifier) @ref.inner)
(scoped_identifier path: (generic_type type: (_) @ref.inner))
(field_expression) @ref.path
(field_expression value: (field_expression) @ref.inner)
(scoped_type_identifier) @ref.type
(scoped_type_identifier path: (_) @ref.inner)
(scoped_type_identifier name: (_) @ref.inner)
(type_identifier) @ref.type
(impl_item type: (type_identifier) @ref.inner)
(impl_item type: (generic_type type: (_) @ref.inner))

; --- references: bare names read in expression positions --------------------------------
(_expression/identifier) @ref.read
(field_expression value: (identifier) @ref.inner)
(match_pattern (identifier) @ref.pattern_name)
