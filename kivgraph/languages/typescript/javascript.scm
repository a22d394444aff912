; JavaScript-only patterns (the javascript grammar has no type syntax and flat parameters).

(formal_parameters (identifier) @bind.name)
(class_heritage (identifier) @ref.extends.name)
(class_heritage (member_expression) @ref.extends.path)
(field_definition value: (identifier) @ref.assign.name)
(field_definition value: (member_expression) @ref.assign.path)
