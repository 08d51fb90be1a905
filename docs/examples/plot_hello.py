"""
Hello
=====

Test.
"""
import matplotlib.pyplot as plt

plt.plot([0, 1], [0, 1])
