"""Checks made before Qt loads: a display, and the system libraries Qt's platform plugins need."""
