"""The table's hardware: board profiles, reed inputs and LED outputs, each real or simulated."""
