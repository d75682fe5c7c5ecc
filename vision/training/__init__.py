"""Training scripts for the dice reader's networks (PyTorch, CPU). Not needed at run time.

Run from the repository root with a Python that has torch, e.g.
`python -m vision.training.train_pips --help`. Each script's docstring says how the shipped
model in vision/models/ was made.
"""
