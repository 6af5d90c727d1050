"""Modules generated from machines/ by `python -m codegen`: do not edit."""
