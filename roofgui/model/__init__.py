"""The model: dtypes, ops (exact FLOPs and bytes), chips and catalog, the roofline maths,
the scenario and the LLM step.  Pure numpy, never Qt."""
