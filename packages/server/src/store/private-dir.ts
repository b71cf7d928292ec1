/**
 * The mode of a directory the kernel creates for what it keeps (a data
 * directory, a backup's folder, retention's exports): only its owner may
 * list or open what is inside, since it holds every call's input and result.
 * A directory that already exists keeps its mode.
 */
export const PRIVATE_DIR_MODE = 0o700;

/** The mode of a file the kernel writes with what it keeps (a backup, a restored store): its owner's alone. */
export const PRIVATE_FILE_MODE = 0o600;
