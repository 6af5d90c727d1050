"""Code and diagram generation from the declarations in `machines/`.

`python -m codegen` rewrites `decoder/unievent/_generated/` and `diagrams/`;
`python -m codegen --check` only compares and exits 1 on any drift;
`python -m codegen --diff REV [--draw]` shows what a change did to the machines and
`python -m codegen --audit` what the last test run took of them.  This package
(and the `transitions` library it uses) is a development tool: the shipped decoder
never imports it.
"""
