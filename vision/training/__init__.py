"""Training scripts for the dice reader's networks (PyTorch, CPU). Not needed at run time.

Install the `train` extra (`pip install -e '.[train]'`: PyTorch and onnx), then run from the
repository root, e.g. `python -m vision.training.train_pips --help`. Each script's docstring
says how the shipped model in vision/models/ was made.
"""
