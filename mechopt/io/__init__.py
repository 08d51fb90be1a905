"""Files: safe reading and writing, mechanism files and their audit, the catalog, the datasets."""
