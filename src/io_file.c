/* placeholder: being written */
typedef int tl_placeholder_io_file;
