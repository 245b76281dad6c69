/* placeholder: being written */
typedef int tl_placeholder_insert;
