"""placeholder"""
class FisherWeighted:
    id = "fisher-weighted"
