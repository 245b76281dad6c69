/* placeholder */
typedef int app_placeholder_options;
