# -*- coding: latin-1 -*-
x = "ascii only is fine"
