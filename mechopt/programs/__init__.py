"""Programs of a custom channel design: the NLP form, the linear (MAE) program, the frequency-variance program."""
