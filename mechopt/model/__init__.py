"""The model: channels, priors, information measures, problems and solvers as interfaces, canonical forms."""
