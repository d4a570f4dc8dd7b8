# A file starting with a UTF-8 byte order mark.
x = "bom"
