"""PlaneZip capture tool: saved activations and ATen operator traces of PyTorch training (see README.md)."""
