"""Models: exact distributions, HMMs, labelled Markov chains and MDPs, model files."""
