package org.apache.flink.table.types.logical;
import java.util.*;
public final class RowType extends LogicalType {
  private static final long serialVersionUID = 1L;
  public static final class RowField implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final String name; private final LogicalType type; private final String description;
    public RowField(String name, LogicalType type) { this(name, type, null); }
    public RowField(String name, LogicalType type, String description) {
      this.name = name;
      this.type = type;
      this.description = description;
    }
  }
  private final List<RowField> fields;
  public RowType(boolean nullable, List<RowField> fields) { super(nullable, LogicalTypeRoot.ROW); this.fields = Collections.unmodifiableList(new ArrayList<>(fields)); }
}
