"""What the camera reads: dice and cards. Until the camera arrives, dice come from virtual dice."""
