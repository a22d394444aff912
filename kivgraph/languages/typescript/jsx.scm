; JSX patterns (tsx and javascript grammars). A component element is a call of the component;
; lowercase intrinsic elements (`<div>`) are dropped in Python.

(jsx_opening_element name: (identifier) @ref.jsx.name)
(jsx_opening_element name: (member_expression) @ref.jsx.path)
(jsx_self_closing_element name: (identifier) @ref.jsx.name)
(jsx_self_closing_element name: (member_expression) @ref.jsx.path)
(jsx_closing_element name: (_) @skip)
(jsx_namespace_name (identifier) @skip)
(jsx_attribute (jsx_expression (identifier) @ref.callback.name))
(jsx_attribute (jsx_expression (member_expression) @ref.callback.path))
