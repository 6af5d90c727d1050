"""Code and diagram generation from the declarations in `machines/`.

`python -m codegen` rewrites `decoder/unievent/_generated/` and `diagrams/`;
`python -m codegen --check` only compares and exits 1 on any drift.  This package
(and the `transitions` library it uses) is a development tool: the shipped decoder
never imports it.
"""
