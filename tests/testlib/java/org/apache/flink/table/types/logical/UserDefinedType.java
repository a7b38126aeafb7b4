package org.apache.flink.table.types.logical;
import org.apache.flink.table.catalog.ObjectIdentifier;
public abstract class UserDefinedType extends LogicalType {
  private static final long serialVersionUID = 1L;
  private final ObjectIdentifier objectIdentifier; private final boolean isFinal; private final String description;
  UserDefinedType(boolean nullable, LogicalTypeRoot root, ObjectIdentifier id, boolean isFinal) { super(nullable, root); objectIdentifier = id; this.isFinal = isFinal; description = null; }
}
