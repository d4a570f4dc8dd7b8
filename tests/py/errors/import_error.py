import math
import not_a_module
