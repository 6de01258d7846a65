"""The engine's contract with every face: the question it takes and the answer it gives, as typed values."""
