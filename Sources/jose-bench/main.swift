print("jose-bench: not yet")
