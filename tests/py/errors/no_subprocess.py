import os
import subprocess
