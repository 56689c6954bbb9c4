//! PlaneZip engine model.
